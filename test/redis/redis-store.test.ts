import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import { beforeEach, expect, expectTypeOf, it } from 'vitest'
import { isRedisStoreError, redisStore, RedisStoreError, type RedisLike } from '../../src/store/redis/index.ts'
import { SET_SCRIPT, withEpoch } from '../../src/store/redis/redis-scripts.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { useRedis } from './support/use-redis.ts'

const redis = useRedis()

describeWith(redisServer)('redisStore', () => {
  beforeEach(async () => {
    await redis.client.flushdb()
    await redis.client.script('FLUSH')
  })

  it('accepts an ioredis client as it is', () => {
    expectTypeOf<Redis>().toExtend<RedisLike>()
  })

  it('puts its prefix before every key', async () => {
    const store = redisStore(redis.client, { keyPrefix: 'app:' })
    await store.set('k', 'v')
    await store.increment('n', 2)
    expect((await redis.client.keys('*')).sort()).toEqual(['app:k', 'app:n', '{app:k}:rg-epoch', '{app:n}:rg-epoch'])
    expect(await redisStore(redis.client).get('app:k')).toBe('v')
  })

  it('gives keys a server-side expiry in whole milliseconds', async () => {
    const store = redisStore(redis.client)
    await store.set('a', 'v', 60_000)
    await store.increment('b', 1, 1_500.2)
    await store.compareAndSet('c', undefined, 'v', 30_000)
    const [a, b, c] = await Promise.all([redis.client.pttl('a'), redis.client.pttl('b'), redis.client.pttl('c')])
    expect(a).toBeGreaterThan(59_000)
    expect(a).toBeLessThanOrEqual(60_000)
    expect(b).toBeGreaterThan(500)
    expect(b).toBeLessThanOrEqual(1_501)
    expect(c).toBeGreaterThan(29_000)
  })

  it('keeps a key without expiry for an infinite ttl', async () => {
    const store = redisStore(redis.client)
    await store.set('k', 'v', 60_000)
    await store.set('k', 'v', Number.POSITIVE_INFINITY)
    expect(await redis.client.pttl('k')).toBe(-1)
  })

  it('loads its scripts on first use and again after the server forgot them', async () => {
    const store = redisStore(redis.client)
    const setSha = createHash('sha1').update(withEpoch(SET_SCRIPT)).digest('hex')
    expect(await redis.client.script('EXISTS', setSha)).toEqual([0])
    await store.set('k', '1')
    expect(await redis.client.script('EXISTS', setSha)).toEqual([1])
    await redis.client.script('FLUSH')
    await store.set('k', '2')
    expect(await redis.client.script('EXISTS', setSha)).toEqual([1])
    expect(await store.get('k')).toBe('2')
  })

  it('runs scripts by hash once they are loaded', async () => {
    const calls: string[] = []
    const spy: RedisLike = {
      evalsha: (...args) => (calls.push('evalsha'), redis.client.evalsha(...args)),
      eval: (...args) => (calls.push('eval'), redis.client.eval(...args)),
    }
    const store = redisStore(spy)
    await store.get('k')
    await store.get('k')
    expect(calls).toEqual(['evalsha', 'eval', 'evalsha'])
  })

  it('rejects with a RedisStoreError naming the operation and key, the client error as cause', async () => {
    const broken: RedisLike = {
      evalsha: () => Promise.reject(new Error('READONLY You cannot write against a read only replica.')),
      eval: () => Promise.reject(new Error('unreachable')),
    }
    const error = await redisStore(broken, { keyPrefix: 'p:' })
      .set('k', 'v')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RedisStoreError)
    expect(isRedisStoreError(error)).toBe(true)
    expect(error).toMatchObject({ name: 'RedisStoreError', operation: 'set', key: 'p:k', cause: { message: expect.stringMatching(/^READONLY/) } })
    expect((error as Error).message).toContain('set of "p:k" failed: READONLY')
  })

  it('rejects a script error from the server, such as a key of another type', async () => {
    await redis.client.hset('h', 'f', '1')
    await expect(redisStore(redis.client).get('h')).rejects.toMatchObject({ operation: 'get', cause: { message: expect.stringContaining('WRONGTYPE') } })
  })

  it('rejects NaN for an increment or a ttl instead of storing it', async () => {
    const store = redisStore(redis.client)
    await expect(store.increment('n', Number.NaN)).rejects.toThrow(RangeError)
    await expect(store.set('k', 'v', Number.NaN)).rejects.toThrow(RangeError)
    expect(await redis.client.exists('n', 'k')).toBe(0)
  })

  it('tells brand-checked errors apart from others', () => {
    expect(isRedisStoreError(new Error('x'))).toBe(false)
    expect(isRedisStoreError({ name: 'RedisStoreError' })).toBe(false)
    expect(isRedisStoreError(new RedisStoreError('get', 'k', new Error('x')))).toBe(true)
  })
})
