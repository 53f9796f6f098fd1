import { beforeEach, describe, expect, it } from 'vitest'
import { memoryStore, type StateStore } from '../../src/index.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { useRedis } from '../redis/support/use-redis.ts'
import { describeWith, redisServer } from '../support/requirements.ts'

const MINUTE = 60_000
const redis = useRedis()

/** A call with one argument of the wrong type or value, the error class it must reject with, and the key it must leave absent. */
type Misuse = readonly [name: string, call: (s: StateStore) => Promise<unknown>, error: typeof TypeError | typeof RangeError]

const any = (v: unknown): never => v as never

const MISUSES: readonly Misuse[] = [
  ['get with a number key', (s) => s.get(any(42)), TypeError],
  ['get with an undefined key', (s) => s.get(any(undefined)), TypeError],
  ['set with a Symbol key', (s) => s.set(any(Symbol('k')), 'v'), TypeError],
  ['set with an object value', (s) => s.set('k', any({ a: 1 })), TypeError],
  ['set with a number value', (s) => s.set('k', any(1)), TypeError],
  ['set with a NaN ttl', (s) => s.set('k', 'v', Number.NaN), RangeError],
  ['set with a string ttl', (s) => s.set('k', 'v', any('60000')), TypeError],
  ['increment by NaN', (s) => s.increment('k', Number.NaN), RangeError],
  ['increment by Infinity', (s) => s.increment('k', Number.POSITIVE_INFINITY), RangeError],
  ['increment by -Infinity', (s) => s.increment('k', Number.NEGATIVE_INFINITY), RangeError],
  ['increment by a numeric string', (s) => s.increment('k', any('1')), TypeError],
  ['increment by a BigInt', (s) => s.increment('k', any(1n)), TypeError],
  ['increment by null', (s) => s.increment('k', any(null)), TypeError],
  ['increment with a null key', (s) => s.increment(any(null), 1), TypeError],
  ['increment with a NaN ttl', (s) => s.increment('k', 1, Number.NaN), RangeError],
  ['compareAndSet with a number next', (s) => s.compareAndSet('k', undefined, any(2)), TypeError],
  ['compareAndSet with a null expected', (s) => s.compareAndSet('k', any(null), 'v'), TypeError],
  ['compareAndSet with an array key', (s) => s.compareAndSet(any(['k']), undefined, 'v'), TypeError],
  ['reserve a NaN amount', (s) => s.reserve('k', 'r', Number.NaN, 1, MINUTE), RangeError],
  ['reserve an infinite amount', (s) => s.reserve('k', 'r', Number.POSITIVE_INFINITY, 1, MINUTE), RangeError],
  ['reserve a string amount', (s) => s.reserve('k', 'r', any('0.5'), 1, MINUTE), TypeError],
  ['reserve against a NaN limit', (s) => s.reserve('k', 'r', 0.5, Number.NaN, MINUTE), RangeError],
  ['reserve against an infinite limit', (s) => s.reserve('k', 'r', 0.5, Number.POSITIVE_INFINITY, MINUTE), RangeError],
  ['reserve with a number id', (s) => s.reserve('k', any(7), 0.5, 1, MINUTE), TypeError],
  ['reserve with a ttl of 0', (s) => s.reserve('k', 'r', 0.5, 1, 0), RangeError],
  ['reserve with an infinite ttl', (s) => s.reserve('k', 'r', 0.5, 1, Number.POSITIVE_INFINITY), RangeError],
  ['reserve with a missing ttl', (s) => s.reserve('k', 'r', 0.5, 1, any(undefined)), TypeError],
  ['settle a NaN amount', (s) => s.settle('k', 'r', Number.NaN), RangeError],
  ['settle an infinite amount', (s) => s.settle('k', 'r', Number.POSITIVE_INFINITY), RangeError],
  ['settle an object amount', (s) => s.settle('k', 'r', any({ valueOf: () => 1 })), TypeError],
  ['settle with an undefined id', (s) => s.settle('k', any(undefined), 1), TypeError],
  ['settle with a NaN ttl', (s) => s.settle('k', 'r', 1, Number.NaN), RangeError],
]

/** The hostile cases every store must pass alike; `make` gives a fresh, empty store. */
function hostileStore(storeName: string, make: () => StateStore | Promise<StateStore>): void {
  let store: StateStore
  beforeEach(async () => {
    store = await make()
  })

  it.each(MISUSES)('refuses %s with a typed error naming the store, and writes nothing', async (_name, call, error) => {
    await store.increment('k', 0.5)
    const outcome = await Promise.race([
      Promise.resolve()
        .then(() => call(store))
        .then(
          () => 'resolved',
          (e: unknown) => e,
        ),
      new Promise((resolve) => setTimeout(() => resolve('hang'), 2_000)),
    ])
    expect(outcome).toBeInstanceOf(error)
    expect((outcome as Error).message).toMatch(new RegExp(`^${storeName}: `))
    expect(await store.get('k')).toBe('0.5')
  })

  it('rejects a misused call instead of throwing at the caller', () => {
    let promise: Promise<unknown> | undefined
    expect(() => {
      promise = store.increment('k', Number.NaN)
    }).not.toThrow()
    return expect(promise).rejects.toThrow(RangeError)
  })

  it('keeps a spend that a NaN increment would have wiped', async () => {
    await store.increment('budget', 0.75)
    await store.increment('budget', Number.NaN).catch(() => undefined)
    expect(await store.increment('budget', 0.25)).toBe(1)
  })

  it('shows a hostile key escaped and cut in the error message', async () => {
    const key = `a\nforged line ${'x'.repeat(100_000)}`
    const error = await store.increment(key, Number.NaN).catch((e: unknown) => e as Error)
    expect(error).toBeInstanceOf(RangeError)
    expect((error as Error).message).not.toContain('\n')
    expect((error as Error).message.length).toBeLessThan(200)
  })

  it.each(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'a\r\nb', '\u0000', '', 'k'.repeat(100_000)])(
    'treats the key %j as plain data',
    async (key) => {
      await store.set(key, 'v')
      expect(await store.get(key)).toBe('v')
      expect(await store.increment(`${key}:n`, 2)).toBe(2)
    },
  )
}

describe('hostile stores: memoryStore', () => {
  hostileStore('memoryStore', () => memoryStore())
})

describeWith(redisServer)('hostile stores: redisStore', () => {
  hostileStore('redisStore', async () => {
    await redis.client.flushdb()
    return redisStore(redis.client, { keyPrefix: 'hostile:' })
  })
})
