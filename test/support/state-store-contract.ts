import fc from 'fast-check'
import { beforeEach, expect, it } from 'vitest'
import type { StateStore } from '../../src/index.ts'

/** A store under test plus a way to let its TTL clock run forward without waiting. */
export interface StoreHarness {
  readonly store: StateStore
  advance(ms: number): Promise<void>
}

// TTLs are minutes and steps leave a second of slack, so the real time a Redis round trip takes
// never decides an outcome.
const MINUTE = 60_000

/**
 * The behaviour every {@link StateStore} shares, registered in the current `describe`: `make` gives a
 * fresh, empty store before each test.
 */
export function stateStoreContract(make: () => StoreHarness | Promise<StoreHarness>): void {
  let h: StoreHarness
  beforeEach(async () => {
    h = await make()
  })

  it('returns undefined for an absent key and the value after set', async () => {
    expect(await h.store.get('k')).toBeUndefined()
    await h.store.set('k', 'v')
    expect(await h.store.get('k')).toBe('v')
  })

  it('stores any string unchanged', async () => {
    const value = '{"state":"open","note":"ünïcødé \\n line","empty":""}'
    await h.store.set('k:with spaces/and:colons', value)
    expect(await h.store.get('k:with spaces/and:colons')).toBe(value)
    await h.store.set('empty', '')
    expect(await h.store.get('empty')).toBe('')
  })

  it('expires a key once its ttl has elapsed', async () => {
    await h.store.set('k', 'v', MINUTE)
    await h.advance(MINUTE - 1_000)
    expect(await h.store.get('k')).toBe('v')
    await h.advance(1_000)
    expect(await h.store.get('k')).toBeUndefined()
  })

  it('keeps a key written with a ttl too long for Redis to count (1e19, 1e300 ms) as one that never ends in practice', async () => {
    for (const ttl of [1e19, 1e300]) {
      await h.store.set(`s${ttl}`, 'v', ttl)
      expect(await h.store.increment(`i${ttl}`, 1.5, ttl)).toBe(1.5)
      expect(await h.store.compareAndSet(`c${ttl}`, undefined, 'v', ttl)).toBe(true)
      expect(await h.store.settle(`b${ttl}`, 'r', 0.5, ttl)).toBe(0.5)
    }
    await h.advance(10 * MINUTE)
    for (const ttl of [1e19, 1e300]) {
      expect([await h.store.get(`s${ttl}`), await h.store.get(`i${ttl}`), await h.store.get(`c${ttl}`), await h.store.get(`b${ttl}`)]).toEqual([
        'v',
        '1.5',
        'v',
        '0.5',
      ])
    }
  })

  it('drops an earlier ttl when set again without one', async () => {
    await h.store.set('k', 'v1', MINUTE)
    await h.store.set('k', 'v2')
    await h.advance(10 * MINUTE)
    expect(await h.store.get('k')).toBe('v2')
  })

  it('treats a ttl of zero or less as already expired', async () => {
    await h.store.set('a', 'v', 0)
    await h.store.set('b', 'v', -5)
    expect(await h.store.get('a')).toBeUndefined()
    expect(await h.store.get('b')).toBeUndefined()
  })

  it('increments from zero, adds fractions and returns the new total', async () => {
    expect(await h.store.increment('spend', 0.25)).toBe(0.25)
    expect(await h.store.increment('spend', 0.5)).toBe(0.75)
    expect(await h.store.get('spend')).toBe('0.75')
  })

  it('adds with double precision and reads the total back as JavaScript prints it', async () => {
    expect(await h.store.increment('n', 0.1)).toBe(0.1)
    expect(await h.store.increment('n', 0.2)).toBe(0.1 + 0.2)
    expect(await h.store.get('n')).toBe(String(0.1 + 0.2))
    expect(await h.store.increment('n', -0.30000000000000004)).toBe(0)
    expect(await h.store.get('n')).toBe('0')
  })

  it.each([3, -7, 1e21, 123456789012345680000, 1e-7, 0.000001, 2.5e-300, 1.7976931348623157e308, 5e-324, 0.1234567890123])(
    'reads back an increment of %s exactly as String() prints it',
    async (by) => {
      await h.store.increment('x', by)
      expect(await h.store.get('x')).toBe(String(by))
    },
  )

  it('prints every double as String() does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ noNaN: true, noDefaultInfinity: true }), async (by) => {
        await h.store.set('p', '0')
        expect(await h.store.increment('p', by)).toBe(by + 0)
        expect(await h.store.get('p')).toBe(String(by + 0))
      }),
      { numRuns: 200 },
    )
  })

  it.each(['not-a-number', '', '   ', 'NaN', 'Infinity', '1e400', '{"spent":3}'])(
    'refuses to count on a counter holding %j, leaving it as it was',
    async (corrupt) => {
      await h.store.set('n', corrupt)
      await expect(h.store.increment('n', 2)).rejects.toThrow(/not a number: refused rather than read as 0/)
      await expect(h.store.reserve('n', 'r', 0.1, 1, MINUTE)).rejects.toThrow(/not a number: refused rather than read as 0/)
      await expect(h.store.settle('n', 'r', 0.1)).rejects.toThrow(/not a number: refused rather than read as 0/)
      expect(await h.store.get('n')).toBe(corrupt)
    },
  )

  it('refuses an increment or a settle that would take a counter past the largest number, leaving it as it was', async () => {
    await h.store.increment('n', Number.MAX_VALUE)
    await expect(h.store.increment('n', Number.MAX_VALUE)).rejects.toThrow(/overflow|past the largest number/i)
    await expect(h.store.settle('n', 'r', Number.MAX_VALUE)).rejects.toThrow(/overflow|past the largest number/i)
    expect(await h.store.get('n')).toBe(String(Number.MAX_VALUE))
    expect(await h.store.increment('n', -Number.MAX_VALUE)).toBe(0)
  })

  it('counts a counter that holds a number written as text', async () => {
    await h.store.set('n', '1.5')
    expect(await h.store.increment('n', 2)).toBe(3.5)
    await h.store.set('b', '0.25')
    expect(await h.store.reserve('b', 'r', 0.5, 1, MINUTE)).toEqual({ granted: true, spent: 0.25, held: 0 })
  })

  it('keeps an existing expiry on increment without ttl and restarts from zero once expired', async () => {
    await h.store.increment('n', 1, MINUTE)
    await h.advance(MINUTE / 2)
    expect(await h.store.increment('n', 1)).toBe(2)
    await h.advance(MINUTE / 2)
    expect(await h.store.get('n')).toBeUndefined()
    expect(await h.store.increment('n', 1)).toBe(1)
  })

  it('restarts the expiry on increment with a ttl', async () => {
    await h.store.increment('n', 1, MINUTE)
    await h.advance(MINUTE - 1_000)
    await h.store.increment('n', 1, MINUTE)
    await h.advance(MINUTE - 1_000)
    expect(await h.store.get('n')).toBe('2')
  })

  it('returns the total of an increment whose ttl has already run out, and keeps nothing', async () => {
    expect(await h.store.increment('n', 4, 0)).toBe(4)
    expect(await h.store.get('n')).toBeUndefined()
  })

  it('never loses one of many concurrent increments', async () => {
    const totals = await Promise.all(Array.from({ length: 50 }, () => h.store.increment('hits', 1)))
    expect(new Set(totals).size).toBe(50)
    expect(await h.store.get('hits')).toBe('50')
  })

  it('writes on compareAndSet only when the current value matches', async () => {
    expect(await h.store.compareAndSet('k', undefined, 'a')).toBe(true)
    expect(await h.store.compareAndSet('k', undefined, 'b')).toBe(false)
    expect(await h.store.compareAndSet('k', 'stale', 'b')).toBe(false)
    expect(await h.store.compareAndSet('k', 'a', 'b')).toBe(true)
    expect(await h.store.get('k')).toBe('b')
  })

  it('tells an empty string from an absent key on compareAndSet', async () => {
    expect(await h.store.compareAndSet('k', '', 'a')).toBe(false)
    await h.store.set('k', '')
    expect(await h.store.compareAndSet('k', undefined, 'a')).toBe(false)
    expect(await h.store.compareAndSet('k', '', 'a')).toBe(true)
  })

  it('expires a value written by compareAndSet with a ttl, after which absent matches again', async () => {
    expect(await h.store.compareAndSet('lock', undefined, 'me', MINUTE)).toBe(true)
    await h.advance(MINUTE)
    expect(await h.store.get('lock')).toBeUndefined()
    expect(await h.store.compareAndSet('lock', undefined, 'you')).toBe(true)
  })

  it('lets exactly one of many concurrent compareAndSet calls win', async () => {
    const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => h.store.compareAndSet('lock', undefined, String(i))))
    expect(wins.filter(Boolean)).toHaveLength(1)
    expect(await h.store.get('lock')).toBe(String(wins.indexOf(true)))
  })

  it('grants a reservation that fits the limit with what is spent and held, and refuses one that does not', async () => {
    await h.store.increment('b', 0.25)
    expect(await h.store.reserve('b', 'r1', 0.5, 1, MINUTE)).toEqual({ granted: true, spent: 0.25, held: 0 })
    expect(await h.store.reserve('b', 'r2', 0.3, 1, MINUTE)).toEqual({ granted: false, spent: 0.25, held: 0.5 })
    expect(await h.store.reserve('b', 'r3', 0.25, 1, MINUTE)).toEqual({ granted: true, spent: 0.25, held: 0.5 })
    // A reservation is not spend.
    expect(await h.store.get('b')).toBe('0.25')
  })

  it('commits the real cost on settle, releases the reservation and returns the new spend', async () => {
    await h.store.reserve('b', 'r1', 0.5, 1, MINUTE)
    expect(await h.store.settle('b', 'r1', 0.125)).toBe(0.125)
    expect(await h.store.reserve('b', 'r2', 0.875, 1, MINUTE)).toEqual({ granted: true, spent: 0.125, held: 0 })
    expect(await h.store.settle('b', 'r2', 0)).toBe(0.125)
    expect(await h.store.get('b')).toBe('0.125')
  })

  it('frees the reservation of a process that never settles once its ttl has run out', async () => {
    expect((await h.store.reserve('b', 'crashed', 0.9, 1, MINUTE)).granted).toBe(true)
    expect(await h.store.reserve('b', 'r', 0.5, 1, MINUTE)).toEqual({ granted: false, spent: 0, held: 0.9 })
    await h.advance(MINUTE)
    expect(await h.store.reserve('b', 'r', 0.5, 1, MINUTE)).toEqual({ granted: true, spent: 0, held: 0 })
  })

  it('still commits a late settle whose reservation has expired', async () => {
    await h.store.reserve('b', 'slow', 0.5, 1, MINUTE)
    await h.advance(2 * MINUTE)
    expect(await h.store.settle('b', 'slow', 0.5)).toBe(0.5)
  })

  it('sets the expiry of the counter on settle with a ttl, as increment does', async () => {
    await h.store.reserve('b', 'r', 0.5, 1, MINUTE)
    await h.store.settle('b', 'r', 0.5, MINUTE)
    await h.advance(MINUTE)
    expect(await h.store.get('b')).toBeUndefined()
  })

  it('never grants more than the limit to many concurrent reservations', async () => {
    const verdicts = await Promise.all(Array.from({ length: 40 }, (_, i) => h.store.reserve('b', `r${i}`, 0.1, 1, MINUTE)))
    expect(verdicts.filter((v) => v.granted)).toHaveLength(10)
  })

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'refuses an amount of %s with a RangeError and keeps what was spent',
    async (bad) => {
      await h.store.increment('spend', 0.5)
      await h.store.reserve('spend', 'held', 0.25, 1, MINUTE)
      await expect(h.store.increment('spend', bad)).rejects.toThrow(RangeError)
      await expect(h.store.settle('spend', 'held', bad)).rejects.toThrow(RangeError)
      await expect(h.store.reserve('spend', 'r', bad, 1, MINUTE)).rejects.toThrow(RangeError)
      await expect(h.store.reserve('spend', 'r', 0.1, bad, MINUTE)).rejects.toThrow(RangeError)
      expect(await h.store.get('spend')).toBe('0.5')
      // The refused settle released nothing: the reservation still holds its 0.25.
      expect(await h.store.reserve('spend', 'r', 0.3, 1, MINUTE)).toEqual({ granted: false, spent: 0.5, held: 0.25 })
    },
  )
}
