import type { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { circuitBreaker, createGate, sharedBudget, sharedRateLimit, type StateStore } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { isRedisStoreError, redisStore } from '../../src/store/redis/index.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { connectClient, deadClient } from './support/redis-client.ts'
import { freePort, startRedisServer, type RedisServer } from './support/redis-server.ts'

// Every test is bounded: a lost server must fail a call at once, never hang it.
const BOUND_MS = 5_000
const pricing = { m: { input: 1, output: 0 } }
const tenCents = { content: validRefundJson, usage: { inputTokens: 100_000, outputTokens: 0 } }

/** A gate on `store` with every shared feature, and its provider. */
function fleetGate(store: StateStore, steps = [validRefundJson]) {
  const provider = scripted(steps, { name: 'llm' })
  const gate = createGate({
    providers: provider,
    outputSchema: Refund,
    breaker: circuitBreaker({ store, failureThreshold: 1 }),
    rateLimit: sharedRateLimit({ store, key: 'rl', limit: 100, windowMs: 60_000, now: () => 0 }),
  })
  return { provider, gate }
}

describe('redisStore without a server', () => {
  let client: Redis
  let store: StateStore

  beforeAll(async () => {
    client = deadClient(await freePort())
    store = redisStore(client)
  })
  afterAll(() => {
    client.disconnect()
  })

  it('rejects every operation with a RedisStoreError', { timeout: BOUND_MS }, async () => {
    const results = await Promise.allSettled([store.get('k'), store.set('k', 'v'), store.increment('k', 1), store.compareAndSet('k', undefined, 'v')])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected'])
    const reasons = results.map((r) => (r.status === 'rejected' ? r.reason : undefined))
    expect(reasons.every(isRedisStoreError)).toBe(true)
    expect(reasons.map((e: { operation: string }) => e.operation)).toEqual(['get', 'set', 'increment', 'compareAndSet'])
  })

  it('lets calls through the breaker and the rate limit, which are advisory', { timeout: BOUND_MS }, async () => {
    const { gate, provider } = fleetGate(store)
    const result = await gate.run(ask('x'))
    expect(result.value).toEqual(JSON.parse(validRefundJson))
    expect(provider.calls).toBe(1)
  })

  it('fails a run with a shared budget before its provider is called', { timeout: BOUND_MS }, async () => {
    const provider = scripted([tenCents])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget: sharedBudget({ store, key: 'budget', usd: 1 }) })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(error).toMatchObject({
      kind: 'unknown',
      phase: 'post-decide',
      reason: expect.stringContaining('the shared budget "budget" could not be reserved: redisStore: reserve of "budget" failed'),
    })
    // The attempt failed with the budget policy's error (the provider is not to blame), caused by the store's.
    const cause = (error as { cause: { code?: string; cause?: unknown } }).cause
    expect(cause.code).toBe('budget-store-failed')
    expect(isRedisStoreError(cause.cause)).toBe(true)
    expect(provider.calls).toBe(0)
  })
})

describeWith(redisServer)('redisStore when its server stops', () => {
  let server: RedisServer | undefined
  let client: Redis

  afterEach(async () => {
    client?.disconnect()
    await server?.stop()
    server = undefined
  })

  it('keeps gates answering through breaker and rate limit after the server is gone', { timeout: BOUND_MS }, async () => {
    server = await startRedisServer()
    client = await connectClient(server)
    client.on('error', () => {})
    const store = redisStore(client)
    const { gate, provider } = fleetGate(store, [validRefundJson, validRefundJson])
    await gate.run(ask('before'))
    expect(await store.get('{rl:llm}:0')).toBe('1')

    await server.stop()
    await expect(store.get('k')).rejects.toMatchObject({ name: 'RedisStoreError', operation: 'get' })
    const after = await gate.run(ask('after'))
    expect(after.provider).toBe('llm')
    expect(provider.calls).toBe(2)
  })

  it('fails a run whose budget can no longer be charged', { timeout: BOUND_MS }, async () => {
    const running = await startRedisServer()
    server = running
    client = await connectClient(running)
    client.on('error', () => {})
    // The server goes away while the provider is answering: the check passed, the charge cannot.
    const provider = scripted([async () => (await running.stop(), tenCents)])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget: sharedBudget({ store: redisStore(client), key: 'budget', usd: 1 }) })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('the shared budget "budget" could not be charged') })
    expect(provider.calls).toBe(1)
  })
})
