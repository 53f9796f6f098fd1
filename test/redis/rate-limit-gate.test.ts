import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  circuitBreaker,
  createGate,
  failoverRule,
  isProviderError,
  memoryStore,
  ProviderError,
  retryTransient,
  sharedRateLimit,
  type ReliabilityScope,
  type StateStore,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const fixedNow = (t: number) => () => t
const failingStore: StateStore = {
  get: () => Promise.reject(new Error('store down')),
  set: () => Promise.reject(new Error('store down')),
  increment: () => Promise.reject(new Error('store down')),
  compareAndSet: () => Promise.reject(new Error('store down')),
  reserve: () => Promise.reject(new Error('store down')),
  settle: () => Promise.reject(new Error('store down')),
}

afterEach(() => {
  vi.useRealTimers()
})

describe('rate limit in the gate', () => {
  it('ends an attempt over the limit at once with kind rate-limit, without calling the provider', async () => {
    const provider = scripted([validRefundJson, validRefundJson], { name: 'p' })
    const rateLimit = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 1, windowMs: 60_000, now: fixedNow(15_000) })
    const gate = createGate({ providers: provider, outputSchema: Refund, rateLimit })
    await gate.run(ask('1'))
    const error = await gate.run(ask('2')).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'rate-limit', attempts: [{ status: 'rate_limit', errorKind: 'rate-limit', provider: 'p' }] })
    const cause = (error as { cause: unknown }).cause
    expect(isProviderError(cause)).toBe(true)
    expect(cause).toMatchObject({ kind: 'rate-limit', code: 'shared-rate-limit', provider: 'p', retryAfterMs: 45_000 })
    expect(provider.calls).toBe(1)
  })

  it('gives rules the time to the end of the window as retryAfterMs', async () => {
    const seen: (number | undefined)[] = []
    const spy = { when: (s: ReliabilityScope) => (seen.push(s.retryAfterMs), false), then: 'retry' as const, kind: 'spy' }
    const rateLimit = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 1, windowMs: 10_000, now: fixedNow(12_500) })
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund, rateLimit, postDecide: [spy] })
    await gate.run(ask('1'))
    await expect(gate.run(ask('2'))).rejects.toMatchObject({ kind: 'rate-limit' })
    expect(seen).toEqual([undefined, 7_500])
  })

  it('lets retryTransient wait out the window, in virtual time', async () => {
    vi.useFakeTimers({ now: 100_000 })
    const provider = scripted([validRefundJson, validRefundJson], { name: 'p' })
    const rateLimit = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 1, windowMs: 1_000 })
    const gate = createGate({ providers: provider, outputSchema: Refund, rateLimit, postDecide: [retryTransient({ maxRetries: 2 })] })
    await gate.run(ask('1'))
    vi.setSystemTime(100_400)
    const run = gate.run(ask('2'))
    await vi.advanceTimersByTimeAsync(599)
    expect(provider.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    const result = await run
    expect(provider.calls).toBe(2)
    expect(result.attempts.map((a) => a.status)).toEqual(['rate_limit', 'success'])
  })

  it('lets failoverRule switch to the next provider, whose window is its own', async () => {
    const primary = scripted([validRefundJson], { name: 'primary' })
    const backup = scripted([validRefundJson], { name: 'backup' })
    const rateLimit = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 1, windowMs: 60_000, now: fixedNow(0) })
    const gate = createGate({ providers: [primary, backup], outputSchema: Refund, rateLimit, postDecide: [failoverRule()] })
    await gate.run(ask('1'))
    const second = await gate.run(ask('2'))
    expect(second.provider).toBe('backup')
    expect(second.attempts.map((a) => [a.provider, a.status])).toEqual([
      ['primary', 'rate_limit'],
      ['backup', 'success'],
    ])
    expect(primary.calls).toBe(1)
  })

  it('does not count a limited attempt as a breaker failure', async () => {
    const breaker = circuitBreaker({ failureThreshold: 1 })
    const rateLimit = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 1, windowMs: 60_000, now: fixedNow(0) })
    const gate = createGate({ providers: scripted([validRefundJson], { name: 'p' }), outputSchema: Refund, breaker, rateLimit })
    await gate.run(ask('1'))
    await expect(gate.run(ask('2'))).rejects.toMatchObject({ kind: 'rate-limit' })
    await expect(gate.run(ask('3'))).rejects.toMatchObject({ kind: 'rate-limit' })
    expect(await breaker.state('p')).toMatchObject({ state: 'closed', failures: 0 })
  })

  it('limits streamed calls too', async () => {
    const provider = scripted([validRefundJson, validRefundJson], { name: 'p' })
    const rateLimit = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 1, windowMs: 60_000, now: fixedNow(0) })
    const gate = createGate({ providers: provider, outputSchema: Refund, rateLimit })
    await gate.stream(ask('1')).result
    await expect(gate.stream(ask('2')).result).rejects.toMatchObject({ kind: 'rate-limit' })
    expect(provider.calls).toBe(1)
  })

  it('lets calls through when its store fails: the limit is advisory', async () => {
    const provider = scripted([validRefundJson, validRefundJson], { name: 'p' })
    const rateLimit = sharedRateLimit({ store: failingStore, key: 'rl', limit: 1, windowMs: 60_000 })
    const gate = createGate({ providers: provider, outputSchema: Refund, rateLimit })
    await gate.run(ask('1'))
    const second = await gate.run(ask('2'))
    expect(second.value).toEqual(JSON.parse(validRefundJson))
    expect(provider.calls).toBe(2)
  })

  it('leaves a provider rate-limit error classified as before', async () => {
    const provider = scripted([new ProviderError('slow down', { kind: 'rate-limit', status: 429, retryAfterMs: 5 })], { name: 'p' })
    const rateLimit = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 5, windowMs: 60_000, now: fixedNow(0) })
    const error = await createGate({ providers: provider, rateLimit })
      .run(ask('1'))
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'rate-limit', cause: { status: 429, retryAfterMs: 5 } })
    expect(provider.calls).toBe(1)
  })
})
