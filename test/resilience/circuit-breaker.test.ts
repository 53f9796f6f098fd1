import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { circuitBreaker, memoryStore } from '../../src/index.ts'
import type { BreakerPermit, CircuitBreaker } from '../../src/policies/index.ts'

const clock = () => {
  let t = 0
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

const fail = async (b: CircuitBreaker, provider = 'p') => b.record(provider, await b.acquire(provider), 'failure')
const succeed = async (b: CircuitBreaker, provider = 'p') => b.record(provider, await b.acquire(provider), 'success')

describe('circuitBreaker', () => {
  it('stays closed below the failure threshold', async () => {
    const b = circuitBreaker({ failureThreshold: 3 })
    await fail(b)
    await fail(b)
    expect((await b.state('p')).state).toBe('closed')
    expect(await b.acquire('p')).toMatchObject({ allowed: true, probe: false })
  })

  it('opens after the threshold of consecutive failures and reports the transition', async () => {
    const b = circuitBreaker({ failureThreshold: 3 })
    await fail(b)
    await fail(b)
    expect(await fail(b)).toEqual({ provider: 'p', from: 'closed', to: 'open', failures: 3 })
  })

  it('resets the count on a success, so only consecutive failures open it', async () => {
    const b = circuitBreaker({ failureThreshold: 2 })
    await fail(b)
    await succeed(b)
    await fail(b)
    expect((await b.state('p')).state).toBe('closed')
    expect((await b.state('p')).failures).toBe(1)
  })

  it('rejects at once while open, with the time left of the cooldown', async () => {
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1000, now: c.now })
    await fail(b)
    c.advance(400)
    expect(await b.acquire('p')).toEqual({ allowed: false, retryAfterMs: 600, transition: undefined })
  })

  it('half-opens after the cooldown and admits only halfOpenMaxProbes probes', async () => {
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1000, halfOpenMaxProbes: 2, now: c.now })
    await fail(b)
    c.advance(1000)
    const first = await b.acquire('p')
    expect(first).toEqual({ allowed: true, probe: true, transition: { provider: 'p', from: 'open', to: 'half-open', failures: 1 } })
    expect(await b.acquire('p')).toMatchObject({ allowed: true, probe: true, transition: undefined })
    expect(await b.acquire('p')).toEqual({ allowed: false, retryAfterMs: undefined, transition: undefined })
  })

  it('closes after successesToClose successful probes', async () => {
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1000, successesToClose: 2, now: c.now })
    await fail(b)
    c.advance(1000)
    expect(await succeed(b)).toBeUndefined()
    expect((await b.state('p')).state).toBe('half-open')
    expect(await succeed(b)).toEqual({ provider: 'p', from: 'half-open', to: 'closed', failures: 0 })
    expect(await b.acquire('p')).toMatchObject({ allowed: true, probe: false })
  })

  it('opens again on a failed probe and restarts the cooldown', async () => {
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1000, now: c.now })
    await fail(b)
    c.advance(1000)
    expect(await fail(b)).toMatchObject({ from: 'half-open', to: 'open' })
    c.advance(999)
    expect(await b.acquire('p')).toMatchObject({ allowed: false, retryAfterMs: 1 })
  })

  it('releases a probe slot on an ignored (aborted) probe without deciding anything', async () => {
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1000, now: c.now })
    await fail(b)
    c.advance(1000)
    const probe = await b.acquire('p')
    expect(await b.record('p', probe, 'ignored')).toBeUndefined()
    expect(await b.state('p')).toMatchObject({ state: 'half-open', probes: 0 })
    expect(await b.acquire('p')).toMatchObject({ allowed: true, probe: true })
  })

  it('never counts ignored results towards opening', async () => {
    const b = circuitBreaker({ failureThreshold: 1 })
    for (let i = 0; i < 5; i++) await b.record('p', await b.acquire('p'), 'ignored')
    expect((await b.state('p')).state).toBe('closed')
  })

  it('admits a new probe when an earlier one never reported back within the cooldown', async () => {
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1000, now: c.now })
    await fail(b)
    c.advance(1000)
    await b.acquire('p') // a probe whose process died
    c.advance(999)
    expect((await b.acquire('p')).allowed).toBe(false)
    c.advance(1)
    expect((await b.acquire('p')).allowed).toBe(true)
  })

  it('ignores results of calls admitted before the breaker opened', async () => {
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1000, now: c.now })
    const early: BreakerPermit = await b.acquire('p')
    await fail(b)
    c.advance(1000)
    await b.acquire('p') // the probe
    expect(await b.record('p', early, 'success')).toBeUndefined()
    expect((await b.state('p')).state).toBe('half-open')
  })

  it('keeps one breaker per provider name', async () => {
    const b = circuitBreaker({ failureThreshold: 1 })
    await fail(b, 'a')
    expect((await b.acquire('a')).allowed).toBe(false)
    expect((await b.acquire('b')).allowed).toBe(true)
  })

  it('shares state through a shared store', async () => {
    const store = memoryStore()
    const one = circuitBreaker({ failureThreshold: 1, store })
    const two = circuitBreaker({ failureThreshold: 1, store })
    await fail(one)
    expect((await two.acquire('p')).allowed).toBe(false)
  })

  it('never shares a record between two prefixes whose joined keys meet (prefix a: with provider b:c, prefix a:b: with provider c)', async () => {
    const store = memoryStore()
    const outer = circuitBreaker({ failureThreshold: 1, store, keyPrefix: 'a:' })
    const inner = circuitBreaker({ failureThreshold: 1, store, keyPrefix: 'a:b:' })
    await fail(outer, 'b:c')
    expect((await outer.acquire('b:c')).allowed).toBe(false)
    expect((await inner.acquire('c')).allowed).toBe(true)
    expect(await store.get('a:b%3Ac')).toBeDefined()
  })

  it('admits exactly halfOpenMaxProbes of many concurrent acquires', async () => {
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 10, halfOpenMaxProbes: 3, now: c.now })
    await fail(b)
    c.advance(10)
    const permits = await Promise.all(Array.from({ length: 12 }, () => b.acquire('p')))
    expect(permits.filter((p) => p.allowed)).toHaveLength(3)
    expect(permits.filter((p) => p.transition !== undefined)).toHaveLength(1)
  })

  it('admits no probe it could not count when a shared store is contended past its compare-and-set rounds', async () => {
    // A store answered in FIFO order: every acquire reads, then every one tries its write, so each round has one winner.
    const inner = memoryStore()
    const hop = () => new Promise<void>((resolve) => setImmediate(resolve))
    const store = {
      get: async (key: string) => (await hop(), inner.get(key)),
      set: (key: string, value: string, ttlMs?: number) => inner.set(key, value, ttlMs),
      increment: (key: string, by: number, ttlMs?: number) => inner.increment(key, by, ttlMs),
      compareAndSet: async (key: string, expected: string | undefined, next: string, ttlMs?: number) => (
        await hop(), inner.compareAndSet(key, expected, next, ttlMs)
      ),
      reserve: (key: string, id: string, amount: number, limit: number, ttlMs: number) => inner.reserve(key, id, amount, limit, ttlMs),
      settle: (key: string, id: string, amount: number, ttlMs?: number) => inner.settle(key, id, amount, ttlMs),
    }
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 10, halfOpenMaxProbes: 60, store, now: c.now })
    await fail(b)
    c.advance(10)
    const permits = await Promise.all(Array.from({ length: 100 }, () => b.acquire('p')))
    const admitted = permits.filter((p) => p.allowed).length
    expect(admitted).toBeLessThanOrEqual(60)
    expect(admitted).toBe((await b.state('p')).probes)
  })

  it('writes no record another process cannot read when its clock answers no time', async () => {
    const store = memoryStore()
    const broken = circuitBreaker({ failureThreshold: 1, store, now: () => Number.NaN })
    const healthy = circuitBreaker({ failureThreshold: 1, store })
    await expect(fail(broken)).rejects.toThrow(TypeError)
    expect(await store.get('rg:breaker:p')).toBeUndefined()
    await fail(healthy)
    expect(await broken.acquire('p').catch((e: unknown) => e)).toBeInstanceOf(TypeError)
    expect(await healthy.state('p')).toMatchObject({ state: 'open', failures: 1 })
  })

  it('refuses a compareAndSet that answers no verdict as a failing store, never as a write', async () => {
    const inner = memoryStore()
    const store = { ...inner, compareAndSet: async () => 'false' as unknown as boolean }
    const c = clock()
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 10, store, now: c.now })
    await expect(fail(b)).rejects.toThrow(/not true or false/)
  })

  it('rejects invalid options', () => {
    expect(() => circuitBreaker({ failureThreshold: 0 })).toThrow(RangeError)
    expect(() => circuitBreaker({ halfOpenMaxProbes: 1.5 })).toThrow(RangeError)
    expect(() => circuitBreaker({ cooldownMs: -1 })).toThrow(RangeError)
  })
})

describe('circuitBreaker with its own store', () => {
  type Step = { readonly provider: 'a' | 'b'; readonly result: 'success' | 'failure' | 'ignored'; readonly wait: number }
  const step = fc.record({
    provider: fc.constantFrom<'a' | 'b'>('a', 'b'),
    result: fc.constantFrom<Step['result']>('success', 'failure', 'ignored'),
    wait: fc.nat(1500),
  })

  it('answers exactly as a breaker over a store of its own that it must read', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const c = clock()
        const options = { failureThreshold: 2, cooldownMs: 1000, successesToClose: 2, halfOpenMaxProbes: 2, now: c.now }
        const fast = circuitBreaker(options)
        const read = circuitBreaker({ ...options, store: memoryStore() })
        for (const { provider, result, wait } of steps) {
          c.advance(wait)
          const [p, q] = [await fast.acquire(provider), await read.acquire(provider)]
          expect(p).toEqual(q)
          expect(await fast.record(provider, p, result)).toEqual(await read.record(provider, q, result))
          expect(await fast.state(provider)).toEqual(await read.state(provider))
        }
      }),
    )
  })
})

describe('circuitBreaker misused', () => {
  it('refuses a provider that is no string, a permit that is no object and an unknown result, naming the method, before any write', async () => {
    const store = memoryStore()
    const b = circuitBreaker({ store })
    await expect(b.acquire(null as never)).rejects.toThrow(new TypeError('circuitBreaker.acquire: provider must be a string, got null'))
    await expect(b.state(42 as never)).rejects.toThrow(new TypeError('circuitBreaker.state: provider must be a string, got 42'))
    await expect(b.record('p', null as never, 'failure')).rejects.toThrow(
      /circuitBreaker\.record: permit must be what acquire answered \{ allowed, probe \}, got null/,
    )
    await expect(b.record('p', await b.acquire('p'), 'failed' as never)).rejects.toThrow(
      /circuitBreaker\.record: result must be 'success', 'failure' or 'ignored', got "failed"/,
    )
    await expect(b.record(undefined as never, { allowed: true, probe: false } as BreakerPermit, 'failure')).rejects.toThrow(TypeError)
    expect(await b.state('p')).toMatchObject({ state: 'closed', failures: 0 })
    expect(await store.get('rg:breaker:null')).toBeUndefined()
  })
})

describe('circuitBreaker on a shared store', () => {
  it('resets failures another breaker counted when a call succeeds, so only consecutive failures open it', async () => {
    const store = memoryStore()
    const here = circuitBreaker({ failureThreshold: 2, store })
    const there = circuitBreaker({ failureThreshold: 2, store })
    await fail(there)
    await succeed(here)
    await fail(there)
    expect(await here.state('p')).toMatchObject({ state: 'closed', failures: 1 })
  })
})
