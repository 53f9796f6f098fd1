import { beforeEach, expect, it } from 'vitest'
import { circuitBreaker, createGate, isReliabilityFailFastError, sharedBudget, sharedRateLimit } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { isRedisStoreError, redisStore } from '../../src/store/redis/index.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { ask, validRefundJson } from '../support/schemas.ts'
import { useRedis } from './support/use-redis.ts'

const redis = useRedis()
const BOUND_MS = 10_000

// 1 USD per million input tokens: an answer of 100_000 input tokens costs $0.10.
const pricing = { m: { input: 1, output: 0 } }
const tenCents = { content: validRefundJson, usage: { inputTokens: 100_000, outputTokens: 0 } }
const CORRUPT = ['not-a-number', '', 'NaN', 'Infinity', '-Infinity', '1e400', '{"spent":3}', '0x']

describeWith(redisServer)('redisStore with a value that cannot be read', () => {
  beforeEach(async () => {
    await redis.client.flushall()
  })

  it.each(CORRUPT)('fails a shared budget closed when its counter holds %j: the provider is not called', { timeout: BOUND_MS }, async (corrupt) => {
    const store = redisStore(redis.client, { keyPrefix: 'corrupt:' })
    const budget = sharedBudget({ store, key: 'budget', usd: 1 })
    const provider = scripted([tenCents, tenCents])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget })
    await gate.run(ask('1'))
    await redis.client.set('corrupt:budget', corrupt)

    const error = await gate.run(ask('2')).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'unknown', cause: { code: 'budget-store-failed' } })
    expect((error as Error).message).toMatch(/not a number: refused rather than read as 0/)
    const storeError = (error as { cause: { cause: unknown } }).cause.cause
    expect(isRedisStoreError(storeError)).toBe(true)
    expect(storeError).toMatchObject({ operation: 'reserve', key: 'corrupt:budget' })
    expect(provider.calls).toBe(1)
    // Nothing was written over the corrupted value, and the budget's own reading refuses it too.
    expect(await redis.client.get('corrupt:budget')).toBe(corrupt)
    await expect(budget.spent()).rejects.toThrow(/not a number/)
  })

  it('fails the charge of an answer whose counter was corrupted while it ran', { timeout: BOUND_MS }, async () => {
    const store = redisStore(redis.client, { keyPrefix: 'midrun:' })
    const budget = sharedBudget({ store, key: 'budget', usd: 1 })
    const provider = scripted([
      async () => {
        await redis.client.set('midrun:budget', 'not-a-number')
        return tenCents
      },
    ])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget })
    const error = await gate.run(ask('1')).catch((e: unknown) => e)
    expect(error).toMatchObject({ cause: { code: 'budget-store-failed' } })
    expect((error as Error).message).toMatch(/could not be charged: .*not a number/)
  })

  it('rejects increment, reserve and settle with a RedisStoreError naming the key and the value', { timeout: BOUND_MS }, async () => {
    const store = redisStore(redis.client, { keyPrefix: 'ops:' })
    await store.set('n', 'zz')
    for (const call of [() => store.increment('n', 1), () => store.reserve('n', 'r', 0.1, 1, 60_000), () => store.settle('n', 'r', 0.1)]) {
      const error = await call().catch((e: unknown) => e)
      expect(isRedisStoreError(error)).toBe(true)
      expect((error as Error).message).toMatch(
        /^redisStore: (increment|reserve|settle) of "ops:n" failed: the counter holds "zz", which is not a number: refused rather than read as 0$/,
      )
    }
    expect(await store.get('n')).toBe('zz')
  })

  it('refuses a reservation whose amount beside the counter was overwritten, when the holds are summed again', { timeout: BOUND_MS }, async () => {
    const store = redisStore(redis.client, { keyPrefix: 'hold:' })
    expect((await store.reserve('b', 'r1', 0.5, 1, 60_000)).granted).toBe(true)
    await redis.client.hset('{hold:b}:holds', 'r1', 'zz')
    await redis.client.del('{hold:b}:holds:sum')
    const error = await store.reserve('b', 'r2', 0.6, 1, 60_000).catch((e: unknown) => e)
    expect(isRedisStoreError(error)).toBe(true)
    expect((error as Error).message).toMatch(/a reservation beside the counter holds "zz", which is not a number: refused rather than read as 0$/)
  })

  it('lets a call through a rate limit whose window counter is corrupted, as an advisory limit does, and the limit rejects', {
    timeout: BOUND_MS,
  }, async () => {
    const now = () => 5_000
    const store = redisStore(redis.client, { keyPrefix: 'rl:' })
    const rateLimit = sharedRateLimit({ store, key: 'rate', limit: 1, windowMs: 1_000, now })
    // The window of provider "llm" at t = 5000: {rate:llm}:5.
    await redis.client.set('rl:{rate:llm}:5', 'not-a-number')
    await expect(rateLimit.acquire('llm')).rejects.toSatisfy(isRedisStoreError)
    const provider = scripted([validRefundJson], { name: 'llm' })
    const gate = createGate({ providers: provider, rateLimit })
    await gate.run(ask('1'))
    expect(provider.calls).toBe(1)
    expect(await redis.client.get('rl:{rate:llm}:5')).toBe('not-a-number')
  })

  it.each(['not json', '42', 'null', '{"state":"ajar"}', '{"state":"open","openedAt":"soon"}', '{"state":"closed","failures":null}'])(
    'refuses a breaker record %j with a TypeError naming its key, and the gate lets the call through',
    { timeout: BOUND_MS },
    async (record) => {
      const store = redisStore(redis.client, { keyPrefix: 'br:' })
      const breaker = circuitBreaker({ store })
      await redis.client.set('br:rg:breaker:llm', record)
      await expect(breaker.acquire('llm')).rejects.toThrow(/circuitBreaker: the record of "rg:breaker:llm" cannot be read/)
      await expect(breaker.state('llm')).rejects.toThrow(TypeError)
      const provider = scripted([validRefundJson], { name: 'llm' })
      await createGate({ providers: provider, breaker }).run(ask('1'))
      expect(provider.calls).toBe(1)
      expect(await redis.client.get('br:rg:breaker:llm')).toBe(record)
    },
  )
})
