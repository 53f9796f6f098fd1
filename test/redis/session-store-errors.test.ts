import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isRedisStoreError, redisSessionStore, type SessionStore } from '../../src/redis.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { deadClient } from './support/redis-client.ts'
import { freePort } from './support/redis-server.ts'
import { useRedis } from './support/use-redis.ts'

const redis = useRedis()
const BOUND_MS = 5_000
const exchange = [{ role: 'user' as const, content: 'hi' }]

/** Every operation of `store` on conversation `c1`, by the operation name its error carries. */
function everyOperation(store: SessionStore): Record<string, () => Promise<unknown>> {
  const approvals = store.approvals
  if (approvals === undefined) throw new Error('redisSessionStore keeps approvals')
  return {
    load: () => store.load('c1'),
    append: () => store.append('c1', { expectedVersion: 0, exchange }),
    delete: () => store.delete('c1'),
    'approvals.create': () => approvals.create('c1', 'a1', '{}'),
    'approvals.read': () => approvals.read('c1', 'a1'),
    'approvals.swap': () => approvals.swap('c1', 'a1', 1, '{}'),
  }
}

/** What each operation rejected with, by operation. */
async function failures(store: SessionStore): Promise<Record<string, unknown>> {
  const entries = await Promise.all(
    Object.entries(everyOperation(store)).map(async ([name, run]) => [
      name,
      await run().then(
        () => 'resolved',
        (e: unknown) => e,
      ),
    ]),
  )
  return Object.fromEntries(entries)
}

describe('redisSessionStore driver errors', () => {
  let client: Redis

  beforeAll(async () => {
    client = deadClient(await freePort())
  })
  afterAll(() => {
    client.disconnect()
  })

  it('rejects every operation on a refused connection with a RedisStoreError naming the store, the operation and the key, the client error as cause', {
    timeout: BOUND_MS,
  }, async () => {
    const found = await failures(redisSessionStore(client, { keyPrefix: 'chat:' }))
    for (const [operation, error] of Object.entries(found)) {
      expect(isRedisStoreError(error), operation).toBe(true)
      expect(error).toMatchObject({ name: 'RedisStoreError', operation })
      expect((error as Error).message).toMatch(new RegExp(`^redisSessionStore: ${operation.replace('.', '\\.')} of "chat:\\{c1\\}(:approvals)?" failed: `))
      expect((error as Error).cause).toBeInstanceOf(Error)
      expect(isRedisStoreError((error as Error).cause)).toBe(false)
    }
  })

  it('refuses a reply of the wrong type as a RedisStoreError, never as a value read', async () => {
    const answer = async (): Promise<unknown> => ({ not: 'a reply' })
    const found = await failures(redisSessionStore({ evalsha: answer, eval: answer }))
    for (const [operation, error] of Object.entries(found)) {
      expect(isRedisStoreError(error), operation).toBe(true)
      expect((error as Error).message, operation).toMatch(/failed: unexpected reply object$/)
    }
  })

  it('refuses a stored approval without its revision rather than read it as one', async () => {
    const answer = async (): Promise<unknown> => 'no revision here'
    const error = await redisSessionStore({ evalsha: answer, eval: answer })
      .approvals?.read('c1', 'a1')
      .catch((e: unknown) => e)
    expect(isRedisStoreError(error)).toBe(true)
    expect(error).toMatchObject({ operation: 'approvals.read', key: 'rg:session:{c1}:approvals' })
  })
})

describeWith(redisServer)('redisSessionStore command errors', () => {
  it('rejects with a RedisStoreError whose cause is the server error when a key holds another type', async () => {
    await redis.client.flushall()
    const store = redisSessionStore(redis.client, { keyPrefix: 'typed:' })
    await redis.client.set('typed:{c1}:approvals', 'a string, not a hash')
    const error = await store.approvals?.read('c1', 'a1').catch((e: unknown) => e)
    expect(isRedisStoreError(error)).toBe(true)
    expect(error).toMatchObject({ operation: 'approvals.read', key: 'typed:{c1}:approvals' })
    expect(((error as Error).cause as Error).message).toMatch(/WRONGTYPE/)
  })
})
