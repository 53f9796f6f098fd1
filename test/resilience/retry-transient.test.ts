import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createGate, exponentialBackoff, failoverRule, ProviderError, retryTransient, type ErrorKind, type GateEventMap } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask } from '../support/schemas.ts'
import { scopeOf } from '../support/scope-of.ts'

const transient = (kind: ErrorKind, retryAfterMs?: number) => new ProviderError(kind, { kind, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) })
const noJitter = { initialMs: 100, factor: 2, jitter: 0 }

describe('retryTransient', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('retries a 5xx after the backoff delay, not before', async () => {
    const provider = scripted([transient('http-5xx'), 'ok'])
    const gate = createGate({ providers: provider, postDecide: [retryTransient({ backoff: { initialMs: 100, jitter: 0.5, random: () => 0.5 } })] })
    const run = gate.run(ask('x'))
    // 100 * (1 - 0.5) + 100 * 0.5 * 0.5 = 75
    await vi.advanceTimersByTimeAsync(74)
    expect(provider.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect((await run).value).toBe('ok')
    expect(provider.calls).toBe(2)
  })

  it('retries rate limits, timeouts and network errors, with exponentially growing delays', async () => {
    const provider = scripted([transient('rate-limit'), transient('timeout'), transient('network'), 'ok'])
    const gate = createGate({ providers: provider, postDecide: [retryTransient({ maxRetries: 3, backoff: noJitter })] })
    const delays: number[] = []
    gate.on('retry', (e) => delays.push(e.delayMs))
    const run = gate.run(ask('x'))
    await vi.advanceTimersByTimeAsync(700)
    expect((await run).value).toBe('ok')
    expect(delays).toEqual([100, 200, 400])
  })

  it('honours retry-after over the backoff', async () => {
    const provider = scripted([transient('rate-limit', 2000), 'ok'])
    const gate = createGate({ providers: provider, postDecide: [retryTransient({ backoff: noJitter })] })
    const run = gate.run(ask('x'))
    await vi.advanceTimersByTimeAsync(1999)
    expect(provider.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    await run
    expect(provider.calls).toBe(2)
  })

  it('reads retry-after from the headers of a plain SDK-like error', async () => {
    const rateLimited = Object.assign(new Error('429'), { status: 429, headers: new Headers({ 'retry-after': '3' }) })
    const provider = scripted([rateLimited, 'ok'])
    const gate = createGate({ providers: provider, postDecide: [retryTransient({ backoff: noJitter })] })
    const delays: number[] = []
    gate.on('retry', (e) => delays.push(e.delayMs))
    const run = gate.run(ask('x'))
    await vi.advanceTimersByTimeAsync(3000)
    await run
    expect(delays).toEqual([3000])
  })

  it('does not match a retry-after above maxRetryAfterMs, so the next rule can fail over', async () => {
    const primary = scripted([transient('rate-limit', 120_000)], { name: 'primary' })
    const backup = scripted(['ok'], { name: 'backup' })
    const gate = createGate({ providers: [primary, backup], postDecide: [retryTransient({ maxRetryAfterMs: 60_000 }), failoverRule()] })
    const result = await gate.run(ask('x'))
    expect(result.provider).toBe('backup')
    expect(result.attempts[0]?.ruleKind).toBe('failover')
  })

  it('stops after maxRetries and fails fast with the error kind', async () => {
    const provider = scripted([transient('http-5xx'), transient('http-5xx'), transient('http-5xx'), 'ok'])
    const gate = createGate({ providers: provider, postDecide: [retryTransient({ maxRetries: 2, backoff: noJitter })] })
    const run = gate.run(ask('x')).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(await run).toMatchObject({ kind: 'http-5xx' })
    expect(provider.calls).toBe(3)
  })

  it('aborts the wait with the signal and never calls the provider again', async () => {
    const provider = scripted([transient('http-5xx', 10_000), 'ok'])
    const gate = createGate({ providers: provider, postDecide: [retryTransient()] })
    const controller = new AbortController()
    const run = gate.run(ask('x'), { signal: controller.signal }).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(5000)
    controller.abort()
    expect(await run).toMatchObject({ kind: 'aborted' })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(provider.calls).toBe(1)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('does not retry errors that are not transient', async () => {
    const badRequest = Object.assign(new Error('invalid model'), { status: 400 })
    const provider = scripted([badRequest, 'ok'])
    const gate = createGate({ providers: provider, postDecide: [retryTransient()] })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'unknown' })
    expect(provider.calls).toBe(1)
  })

  it('does not retry an open circuit breaker', () => {
    const rule = retryTransient()
    expect(rule.when(scopeOf({ errorKind: 'circuit-open', transientFailures: 0 }))).toBe(false)
  })

  it('retries only the kinds it is given', async () => {
    const provider = scripted([transient('timeout'), 'ok'])
    const gate = createGate({ providers: provider, postDecide: [retryTransient({ kinds: ['rate-limit'] })] })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'timeout' })
  })

  it('accepts a backoff function', async () => {
    const provider = scripted([transient('network'), transient('network'), 'ok'])
    const gate = createGate({ providers: provider, postDecide: [retryTransient({ backoff: (retry) => (retry + 1) * 1000 })] })
    const delays: GateEventMap['retry']['delayMs'][] = []
    gate.on('retry', (e) => delays.push(e.delayMs))
    const run = gate.run(ask('x'))
    await vi.advanceTimersByTimeAsync(3000)
    await run
    expect(delays).toEqual([1000, 2000])
  })

  it('shows its name in stack traces', () => {
    expect(retryTransient().when.name).toBe('retryTransientWhen')
  })
})

describe('exponentialBackoff', () => {
  it('keeps every delay within [base * (1 - jitter), base], base capped at maxMs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 0, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (initialMs, factor, jitter, maxMs, retry, r) => {
          const delay = exponentialBackoff({ initialMs, factor, jitter, maxMs, random: () => r })(retry)
          const base = Math.min(maxMs, initialMs * factor ** retry)
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitter)))
          expect(delay).toBeLessThanOrEqual(Math.ceil(base))
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('keeps every delay within maxMs whatever random() answers', () => {
    const delays = [5, 1e308, Number.POSITIVE_INFINITY, -3, Number.NaN, '0.5'].map((r) =>
      exponentialBackoff({ initialMs: 1_000, maxMs: 1_000, jitter: 1, random: () => r as number })(0),
    )
    expect(delays).toEqual([1_000, 1_000, 1_000, 0, 1_000, 1_000])
    expect(exponentialBackoff({ initialMs: 100, jitter: 0 })(Number.NaN)).toBe(100)
  })

  it('spreads delays with jitter and is exact without it', () => {
    expect(exponentialBackoff({ initialMs: 100, jitter: 1, random: () => 0 })(0)).toBe(0)
    expect(exponentialBackoff({ initialMs: 100, jitter: 1, random: () => 0.5 })(0)).toBe(50)
    expect(exponentialBackoff({ initialMs: 100, jitter: 0 })(3)).toBe(800)
    expect(exponentialBackoff({ initialMs: 100, maxMs: 500, jitter: 0 })(10)).toBe(500)
  })
})
