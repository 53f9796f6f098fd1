import { afterEach, describe, expect, it, vi } from 'vitest'
import { circuitBreaker, memoryStore } from '../../src/index.ts'
import { breakerNow } from '../../src/policies/breaker/circuit-breaker.ts'
import { syncStore } from '../../src/store/sync-store.ts'

// The common path of a breaker and a budget on memoryStore() runs on every attempt: these pin that it
// makes nothing it can do without (no record parsed or written again, no Map made), by counting calls.

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a closed breaker on a shared memoryStore', () => {
  it('admits and hears a success without parsing or writing its record again', () => {
    const store = memoryStore()
    const breaker = circuitBreaker({ store, failureThreshold: 3 })
    const now = breakerNow(breaker)
    if (now === undefined) throw new Error('memoryStore gives the breaker a synchronous face')
    // A failure then a success: the record is stored, closed and clean.
    now.record('p', now.acquire('p'), 'failure')
    now.record('p', now.acquire('p'), 'success')
    now.acquire('p')
    const parse = vi.spyOn(JSON, 'parse')
    const stringify = vi.spyOn(JSON, 'stringify')
    const first = now.acquire('p')
    for (let i = 0; i < 100; i++) {
      expect(now.acquire('p')).toBe(first)
      expect(now.record('p', first, 'success')).toBeUndefined()
    }
    expect(parse).not.toHaveBeenCalled()
    expect(stringify).not.toHaveBeenCalled()
  })

  it('reads its clock only to count a failure', () => {
    const clock = vi.fn(() => 1_000)
    const now = breakerNow(circuitBreaker({ store: memoryStore(), failureThreshold: 1, cooldownMs: 10, now: clock }))
    if (now === undefined) throw new Error('memoryStore gives the breaker a synchronous face')
    for (let i = 0; i < 10; i++) now.record('p', now.acquire('p'), 'success')
    expect(clock).not.toHaveBeenCalled()
    expect(now.record('p', now.acquire('p'), 'failure')).toEqual({ provider: 'p', from: 'closed', to: 'open', failures: 1 })
    expect(clock).toHaveBeenCalledTimes(1)
    expect(now.acquire('p')).toEqual({ allowed: false, retryAfterMs: 10, transition: undefined })
  })

  it('still counts a failure and reads back what another breaker on the store wrote', async () => {
    const store = memoryStore()
    const a = breakerNow(circuitBreaker({ store, failureThreshold: 2 }))
    const b = circuitBreaker({ store, failureThreshold: 2 })
    if (a === undefined) throw new Error('memoryStore gives the breaker a synchronous face')
    a.record('p', a.acquire('p'), 'success')
    expect(await b.record('p', await b.acquire('p'), 'failure')).toBeUndefined()
    expect(a.record('p', a.acquire('p'), 'failure')).toEqual({ provider: 'p', from: 'closed', to: 'open', failures: 2 })
    expect(a.acquire('p').allowed).toBe(false)
  })
})

describe('hostile names on the in-process path', () => {
  it('keeps breakers of providers named after prototype keys, with line breaks or huge names apart, past the cache limit', () => {
    const breaker = breakerNow(circuitBreaker({ store: memoryStore(), failureThreshold: 1 }))
    if (breaker === undefined) throw new Error('memoryStore gives the breaker a synchronous face')
    const names = ['__proto__', 'constructor', 'toString', 'a\nb', 'a\u2028b', 'x'.repeat(100_000), ...Array.from({ length: 300 }, (_, i) => `p${i}`)]
    // Every other provider fails once (opens); the others stay closed, whatever the caches forgot meanwhile.
    names.forEach((name, i) => {
      if (i % 2 === 0) breaker.record(name, breaker.acquire(name), 'failure')
    })
    names.forEach((name, i) => {
      expect(breaker.acquire(name).allowed, name.slice(0, 20)).toBe(i % 2 !== 0)
    })
    expect(({} as { state?: unknown }).state).toBeUndefined()
  })

  it('holds and settles reservations whose ids are prototype keys or carry line breaks, past the scan limit', async () => {
    const store = memoryStore()
    const ids = ['__proto__', 'constructor', 'hasOwnProperty', 'a\nb', ...Array.from({ length: 20 }, (_, i) => `id${i}`)]
    for (const id of ids) expect(await store.reserve('b', id, 1, 100, 60_000)).toMatchObject({ granted: true })
    expect(await store.reserve('b', 'probe', 0, 100, 60_000)).toMatchObject({ held: ids.length })
    for (const id of ids) await store.settle('b', id, 0.5)
    expect(await store.reserve('b', 'last', 0, 100, 60_000)).toMatchObject({ held: 0, spent: ids.length * 0.5 })
  })
})

describe('a budget counter on memoryStore', () => {
  it('reserves and settles without adding to or deleting from a Map (whose table would be re-made as it empties)', async () => {
    const store = memoryStore()
    const sync = syncStore(store)
    if (sync === undefined) throw new Error('memoryStore has a synchronous face')
    sync.reserve('budget', 'warm', 1, 100, 1_000)
    sync.settle('budget', 'warm', 0.5)
    const set = vi.spyOn(Map.prototype, 'set')
    const deleted = vi.spyOn(Map.prototype, 'delete')
    const made = vi.fn()
    const RealMap = globalThis.Map
    globalThis.Map = class CountedMap<K, V> extends RealMap<K, V> {
      constructor(entries?: Iterable<readonly [K, V]> | null) {
        super(entries)
        made()
      }
    }
    try {
      for (let i = 0; i < 100; i++) {
        const id = `attempt:${i}`
        expect(sync.reserve('budget', id, 1, 100, 1_000).granted).toBe(true)
        sync.settle('budget', id, 0.25)
      }
    } finally {
      globalThis.Map = RealMap
    }
    expect(made).not.toHaveBeenCalled()
    expect(set).not.toHaveBeenCalled()
    expect(deleted).not.toHaveBeenCalled()
    expect(await store.get('budget')).toBe('25.5')
    expect(await store.increment('budget', 0.5)).toBe(26)
  })
})
