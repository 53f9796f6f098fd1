import { describe, expect, it } from 'vitest'
import { memoryStore } from '../../src/index.ts'

const clock = () => {
  let t = 1_000
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe('memoryStore', () => {
  it('returns undefined for an absent key and the value after set', async () => {
    const store = memoryStore()
    expect(await store.get('k')).toBeUndefined()
    await store.set('k', 'v')
    expect(await store.get('k')).toBe('v')
  })

  it('expires a key after its ttl on the injected clock', async () => {
    const c = clock()
    const store = memoryStore({ now: c.now })
    await store.set('k', 'v', 100)
    c.advance(99)
    expect(await store.get('k')).toBe('v')
    c.advance(1)
    expect(await store.get('k')).toBeUndefined()
  })

  it('increments from zero, adds fractions and returns the new total', async () => {
    const store = memoryStore()
    expect(await store.increment('spend', 0.25)).toBe(0.25)
    expect(await store.increment('spend', 0.5)).toBe(0.75)
    expect(await store.get('spend')).toBe('0.75')
  })

  it('keeps an existing expiry on increment without ttl and restarts from zero once expired', async () => {
    const c = clock()
    const store = memoryStore({ now: c.now })
    await store.increment('n', 1, 50)
    c.advance(30)
    await store.increment('n', 1)
    c.advance(20)
    expect(await store.get('n')).toBeUndefined()
    expect(await store.increment('n', 1)).toBe(1)
  })

  it('writes on compareAndSet only when the current value matches', async () => {
    const store = memoryStore()
    expect(await store.compareAndSet('k', undefined, 'a')).toBe(true)
    expect(await store.compareAndSet('k', undefined, 'b')).toBe(false)
    expect(await store.compareAndSet('k', 'stale', 'b')).toBe(false)
    expect(await store.compareAndSet('k', 'a', 'b')).toBe(true)
    expect(await store.get('k')).toBe('b')
  })

  it('lets exactly one of many concurrent compareAndSet calls win', async () => {
    const store = memoryStore()
    const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => store.compareAndSet('lock', undefined, String(i))))
    expect(wins.filter(Boolean)).toHaveLength(1)
  })
})
