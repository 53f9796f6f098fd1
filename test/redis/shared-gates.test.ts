import type { Redis } from 'ioredis'
import { beforeAll, beforeEach, expect, it } from 'vitest'
import { circuitBreaker, createGate, failoverRule, ProviderError, sharedBudget, sharedRateLimit, type StateStore } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { useRedis } from './support/use-redis.ts'

// Two gates, each with its own Redis connection, as two services of one fleet would have.
const redis = useRedis(2)
let storeA: StateStore
let storeB: StateStore

// 1 USD per million input tokens: an answer of 100_000 input tokens costs $0.10.
const pricing = { m: { input: 1, output: 0 } }
const tenCents = { content: validRefundJson, usage: { inputTokens: 100_000, outputTokens: 0 } }
const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })

describeWith(redisServer)('two gates on one Redis store', () => {
  beforeAll(() => {
    const [clientA, clientB] = redis.clients as [Redis, Redis]
    storeA = redisStore(clientA, { keyPrefix: 'fleet:' })
    storeB = redisStore(clientB, { keyPrefix: 'fleet:' })
  })
  beforeEach(async () => {
    await redis.client.flushdb()
  })

  it('share a budget: spending by one stops the other before its provider is called', async () => {
    const providerA = scripted([tenCents, tenCents])
    const providerB = scripted([tenCents])
    const gateA = createGate({
      providers: providerA,
      model: 'm',
      pricing,
      outputSchema: Refund,
      budget: sharedBudget({ store: storeA, key: 'budget', usd: 0.2 }),
    })
    const gateB = createGate({
      providers: providerB,
      model: 'm',
      pricing,
      outputSchema: Refund,
      budget: sharedBudget({ store: storeB, key: 'budget', usd: 0.2 }),
    })
    await gateA.run(ask('1'))
    await gateA.run(ask('2'))
    await expect(gateB.run(ask('3'))).rejects.toMatchObject({ kind: 'budget-exceeded', phase: 'post-decide' })
    expect(providerB.calls).toBe(0)
    expect(await sharedBudget({ store: storeB, key: 'budget', usd: 0.2 }).spent()).toBeCloseTo(0.2, 12)
  })

  it('share a breaker: failures seen by one open it for the other', async () => {
    const options = { failureThreshold: 2, cooldownMs: 60_000 }
    const gateA = createGate({ providers: scripted([down(), down()], { name: 'llm' }), breaker: circuitBreaker({ ...options, store: storeA }) })
    const healthyB = scripted([validRefundJson], { name: 'llm' })
    const gateB = createGate({ providers: healthyB, breaker: circuitBreaker({ ...options, store: storeB }) })
    await expect(gateA.run(ask('1'))).rejects.toMatchObject({ kind: 'http-5xx' })
    await expect(gateA.run(ask('2'))).rejects.toMatchObject({ kind: 'http-5xx' })
    await expect(gateB.run(ask('3'))).rejects.toMatchObject({ kind: 'circuit-open' })
    expect(healthyB.calls).toBe(0)
  })

  it('share a rate-limit window: calls by one count against the other', async () => {
    const limit = (store: StateStore) => sharedRateLimit({ store, key: 'rl', limit: 2, windowMs: 60_000, now: () => 30_000 })
    const primaryB = scripted([validRefundJson], { name: 'llm' })
    const backupB = scripted([validRefundJson], { name: 'backup' })
    const gateA = createGate({ providers: scripted([validRefundJson, validRefundJson], { name: 'llm' }), rateLimit: limit(storeA) })
    const gateB = createGate({ providers: [primaryB, backupB], rateLimit: limit(storeB), postDecide: [failoverRule()] })
    await gateA.run(ask('1'))
    await gateA.run(ask('2'))
    const result = await gateB.run(ask('3'))
    expect(result.provider).toBe('backup')
    expect(primaryB.calls).toBe(0)
  })

  it('admit exactly limit calls per window when many race from both connections', async () => {
    const limitA = sharedRateLimit({ store: storeA, key: 'race', limit: 10, windowMs: 60_000, now: () => 0 })
    const limitB = sharedRateLimit({ store: storeB, key: 'race', limit: 10, windowMs: 60_000, now: () => 0 })
    const permits = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? limitA : limitB).acquire('llm')))
    expect(permits.filter((p) => p.allowed)).toHaveLength(10)
  })
})
