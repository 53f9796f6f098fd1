import { describe, expect, it } from 'vitest'
import { createGate, memoryStore, sharedRateLimit, type StateStore } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const clock = (start = 10_000) => {
  let t = start
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe('sharedRateLimit', () => {
  it('admits limit calls per window and reports what is left', async () => {
    const rl = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 3, windowMs: 1_000, now: clock().now })
    const permits = [await rl.acquire('p'), await rl.acquire('p'), await rl.acquire('p')]
    expect(permits).toEqual([
      { allowed: true, remaining: 2 },
      { allowed: true, remaining: 1 },
      { allowed: true, remaining: 0 },
    ])
  })

  it('denies a call over the limit with the time left to the end of the window', async () => {
    const c = clock(10_250)
    const rl = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 1, windowMs: 1_000, now: c.now })
    await rl.acquire('p')
    expect(await rl.acquire('p')).toEqual({ allowed: false, retryAfterMs: 750 })
    c.advance(700)
    expect(await rl.acquire('p')).toEqual({ allowed: false, retryAfterMs: 50 })
  })

  it('starts a fresh count when the next window begins', async () => {
    const c = clock(10_999)
    const rl = sharedRateLimit({ store: memoryStore({ now: c.now }), key: 'rl', limit: 1, windowMs: 1_000, now: c.now })
    expect((await rl.acquire('p')).allowed).toBe(true)
    expect((await rl.acquire('p')).allowed).toBe(false)
    c.advance(1)
    expect(await rl.acquire('p')).toEqual({ allowed: true, remaining: 0 })
  })

  it('keeps a separate window per subject', async () => {
    const rl = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 1, windowMs: 1_000, now: clock().now })
    expect((await rl.acquire('primary')).allowed).toBe(true)
    expect((await rl.acquire('primary')).allowed).toBe(false)
    expect((await rl.acquire('backup')).allowed).toBe(true)
  })

  it('refuses to count under a clock that answers no time, naming the clock, and writes nothing', async () => {
    const store = memoryStore()
    for (const time of [Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number]) {
      const rl = sharedRateLimit({ store, key: 'rl', limit: 1, windowMs: 1_000, now: () => time })
      await expect(rl.acquire('p')).rejects.toThrow(
        new TypeError(`sharedRateLimit: now() must answer a finite number of ms, got ${typeof time === 'string' ? '"5"' : String(time)}`),
      )
    }
    expect(await store.get('{rl:p}:NaN')).toBeUndefined()
  })

  it('never counts the window of one key and subject with another pair whose joined text is the same (key rl with provider a:b, key rl:a with provider b)', async () => {
    const store = memoryStore()
    const now = clock().now
    const outer = sharedRateLimit({ store, key: 'rl', limit: 1, windowMs: 1_000, now })
    const inner = sharedRateLimit({ store, key: 'rl:a', limit: 1, windowMs: 1_000, now })
    expect((await outer.acquire('a:b')).allowed).toBe(true)
    expect((await inner.acquire('b')).allowed).toBe(true)
    expect((await inner.acquire('b')).allowed).toBe(false)
    expect((await outer.acquire('a%3Ab')).allowed).toBe(true)
  })

  it('shares a window between limits on the same store and key', async () => {
    const store = memoryStore()
    const c = clock()
    const a = sharedRateLimit({ store, key: 'rl', limit: 2, windowMs: 1_000, now: c.now })
    const b = sharedRateLimit({ store, key: 'rl', limit: 2, windowMs: 1_000, now: c.now })
    await a.acquire('p')
    await b.acquire('p')
    expect((await a.acquire('p')).allowed).toBe(false)
  })

  it('lets its counters expire one window after their own', async () => {
    const c = clock(10_000)
    const ttls: (number | undefined)[] = []
    const store = memoryStore()
    const spy: StateStore = { ...store, increment: (key, by, ttlMs) => (ttls.push(ttlMs), store.increment(key, by, ttlMs)) }
    const rl = sharedRateLimit({ store: spy, key: 'rl', limit: 5, windowMs: 1_000, now: c.now })
    await rl.acquire('p')
    c.advance(400)
    await rl.acquire('p')
    expect(ttls).toEqual([2_000, 1_600])
  })

  it('refuses a count the store answers that is no count of calls, rather than read it as a full or an empty window', async () => {
    for (const garbage of [Number.NaN, -3, 0, 2.5, '1', undefined]) {
      const store = memoryStore()
      const liar: StateStore = { ...store, increment: async () => garbage as number }
      const rl = sharedRateLimit({ store: liar, key: 'rl', limit: 5, windowMs: 1_000, now: clock().now })
      await expect(rl.acquire('p')).rejects.toThrow(TypeError)
    }
  })

  it('lets the call through, as for a store that fails, when the store answers a count of NaN', async () => {
    const store = memoryStore()
    const rateLimit = sharedRateLimit({ store: { ...store, increment: async () => Number.NaN }, key: 'rl', limit: 1, windowMs: 1_000 })
    const answer = { content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' as const }
    const provider = scripted([answer, answer])
    const gate = createGate({ providers: provider, rateLimit })
    for (const text of ['a', 'b']) expect((await gate.run({ messages: [{ role: 'user', content: text }] })).response.content).toBe('ok')
    expect(provider.calls).toBe(2)
  })

  it('rejects a limit that is not a positive integer and a window that is not positive', () => {
    const store = memoryStore()
    expect(() => sharedRateLimit({ store, key: 'k', limit: 0, windowMs: 1 })).toThrow(RangeError)
    expect(() => sharedRateLimit({ store, key: 'k', limit: 1.5, windowMs: 1 })).toThrow(RangeError)
    expect(() => sharedRateLimit({ store, key: 'k', limit: 1, windowMs: 0 })).toThrow(RangeError)
    expect(() => sharedRateLimit({ store, key: 'k', limit: 1, windowMs: Number.POSITIVE_INFINITY })).toThrow(RangeError)
  })
})
