import type { Redis } from 'ioredis'
import { beforeEach, expect, it } from 'vitest'
import type { StateStore } from '../../src/index.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { advanceTtls } from './support/redis-client.ts'
import { useRedis } from './support/use-redis.ts'

// A budget's reserve and settle must not walk the reservations in flight on it: with thousands of
// attempts in flight (attempts/s x a provider's seconds) one budget key would otherwise become the
// fleet's bottleneck. What a script does is read from the server's own count of the commands it ran.
const redis = useRedis()
const PREFIX = 'in-flight:'
const TEN_MINUTES = 600_000

/** Commands the server ran, by name, since the last `CONFIG RESETSTAT` (the scripts' own calls included). */
async function commandsRun(admin: Redis): Promise<Record<string, number>> {
  const text = await admin.info('commandstats')
  const counts: Record<string, number> = {}
  for (const [, name, calls] of text.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)) {
    if (name !== undefined && !['eval', 'evalsha', 'info', 'config'].includes(name)) counts[name] = Number(calls)
  }
  return counts
}

/** Holds `count` reservations of `amount` on `key`, as `count` attempts of other processes would. */
async function holdMany(store: StateStore, key: string, count: number, amount: number, ttlMs: number): Promise<void> {
  for (let from = 0; from < count; from += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, count - from) }, (_, i) => store.reserve(key, `other-${from + i}`, amount, 1e9, ttlMs))
    for (const verdict of await Promise.all(batch)) expect(verdict.granted).toBe(true)
  }
}

/** The commands one reserve + settle runs on `key`, per pair, over `pairs` pairs. */
async function commandsPerPair(store: StateStore, key: string, pairs: number): Promise<Record<string, number>> {
  await redis.client.config('RESETSTAT')
  for (let i = 0; i < pairs; i++) {
    expect((await store.reserve(key, `mine-${i}`, 0.0001, 1e9, TEN_MINUTES)).granted).toBe(true)
    await store.settle(key, `mine-${i}`, 0.0001)
  }
  const counts = await commandsRun(redis.client)
  return Object.fromEntries(Object.entries(counts).map(([name, calls]) => [name, calls / pairs]))
}

/** Retries `check` every 25 ms until it returns true, for at most `withinMs`; returns what it returned last. */
async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs
  for (;;) {
    if (await check()) return true
    if (Date.now() > until) return false
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describeWith(redisServer)('a shared budget with many reservations in flight on redisStore', () => {
  let store: StateStore
  beforeEach(async () => {
    await redis.client.flushdb()
    store = redisStore(redis.client, { keyPrefix: PREFIX })
  })

  it('runs the same commands per reserve and settle with 10,000 reservations in flight as with 100', { timeout: 60_000 }, async () => {
    await holdMany(store, 'wide', 10_000, 0.0001, TEN_MINUTES)
    await holdMany(store, 'narrow', 100, 0.0001, TEN_MINUTES)
    const { pexpire: wideExpiries = 0, ...wide } = await commandsPerPair(store, 'wide', 20)
    const { pexpire: narrowExpiries = 0, ...narrow } = await commandsPerPair(store, 'narrow', 20)
    expect(wide).toEqual(narrow)
    // The keys' life is pushed back (3 PEXPIREs) only when a millisecond passed since the last reserve.
    expect(Math.max(wideExpiries, narrowExpiries)).toBeLessThanOrEqual(3)
    // A handful of single-key commands, none that reads a whole hash or set.
    expect(Object.values(wide).reduce((a, b) => a + b, 0)).toBeLessThan(30)
    expect(Object.keys(wide).filter((name) => ['hgetall', 'hkeys', 'hvals', 'zrange', 'keys', 'scan', 'exists'].includes(name))).toEqual([])
    // Every reservation still counts: the ones in flight, none of the settled ones.
    const probe = await store.reserve('wide', 'probe', 0, 1e9, TEN_MINUTES)
    expect(probe.held).toBeCloseTo(1, 9)
    expect(probe.spent).toBeCloseTo(0.002, 12)
    expect(await redis.client.zcard(`{${PREFIX}wide}:holds:expiry`)).toBe(10_001)
  })

  it('frees the money of reservations that expire without a settle, touching only those', { timeout: 60_000 }, async () => {
    await holdMany(store, 'b', 10_000, 0.00001, TEN_MINUTES)
    const short = Array.from({ length: 500 }, (_, i) => store.reserve('b', `crashed-${i}`, 0.001, 1, 300))
    expect((await Promise.all(short)).every((verdict) => verdict.granted)).toBe(true)
    // 0.1 held by the long ones, 0.5 by the short ones: 0.8995 fits only once all 500 short ones are gone.
    await redis.client.config('RESETSTAT')
    const refused = await store.reserve('b', 'r', 0.8995, 1, TEN_MINUTES)
    expect(refused.granted).toBe(false)
    expect(refused.held).toBeGreaterThan(0.1)
    // Nobody settles the 500 short ones: once their 300 ms are over, the reservation fits.
    expect(await eventually(async () => (await store.reserve('b', 'r', 0.8995, 1, TEN_MINUTES)).granted, 5_000)).toBe(true)
    // Each expired reservation was dropped once, none of the 10,000 live ones was read.
    const counts = await commandsRun(redis.client)
    expect(counts['hdel']).toBe(500)
    expect(counts['hgetall']).toBeUndefined()
    const after = await store.reserve('b', 'after', 0, 1, TEN_MINUTES)
    expect(after.held).toBeCloseTo(0.1 + 0.8995, 9)
    expect(await redis.client.hlen(`{${PREFIX}b}:holds`)).toBe(10_002)
  })

  it('keeps the money an expired reservation freed even when the reservation that found it was refused', async () => {
    await store.reserve('b', 'crashed', 0.5, 1, 10_000)
    await store.reserve('b', 'live', 0.25, 1, TEN_MINUTES)
    await advanceTtls(redis.client, PREFIX, 20_000)
    expect(await store.reserve('b', 'too-big', 1, 1, TEN_MINUTES)).toEqual({ granted: false, spent: 0, held: 0.25 })
    expect(await store.reserve('b', 'fits', 0.75, 1, TEN_MINUTES)).toEqual({ granted: true, spent: 0, held: 0.25 })
  })

  it('removes every key of a budget whose last reservation ended, and counts from zero again', async () => {
    await store.reserve('b', 'r1', 0.1, 1, TEN_MINUTES)
    await store.reserve('b', 'r2', 0.2, 1, TEN_MINUTES)
    await store.settle('b', 'r1', 0.1)
    await store.settle('b', 'r2', 0.2)
    expect((await redis.client.keys('*holds*')).sort()).toEqual([])
    expect(await store.reserve('b', 'r3', 0.7, 1, TEN_MINUTES)).toEqual({ granted: true, spent: 0.30000000000000004, held: 0 })
  })

  it('gives the keys of a budget the life of its longest reservation', async () => {
    await store.reserve('b', 'long', 0.1, 1, TEN_MINUTES)
    await store.reserve('b', 'short', 0.1, 1, 1_000)
    const keys = [`{${PREFIX}b}:holds`, `{${PREFIX}b}:holds:expiry`, `{${PREFIX}b}:holds:sum`]
    for (const key of keys) {
      const left = await redis.client.pttl(key)
      expect(left).toBeGreaterThan(TEN_MINUTES - 60_000)
      expect(left).toBeLessThanOrEqual(TEN_MINUTES)
    }
  })

  it('recounts what is held when the sum of a budget is gone, from the reservations still there', async () => {
    await store.reserve('b', 'r1', 0.25, 1, TEN_MINUTES)
    await store.reserve('b', 'r2', 0.125, 1, TEN_MINUTES)
    await redis.client.del(`{${PREFIX}b}:holds:sum`)
    expect(await store.reserve('b', 'r3', 0.75, 1, TEN_MINUTES)).toEqual({ granted: false, spent: 0, held: 0.375 })
    expect(await store.reserve('b', 'r3', 0.5, 1, TEN_MINUTES)).toEqual({ granted: true, spent: 0, held: 0.375 })
    expect(await store.settle('b', 'r1', 0.25)).toBe(0.25)
    expect(await store.reserve('b', 'r4', 0, 1, TEN_MINUTES)).toEqual({ granted: true, spent: 0.25, held: 0.625 })
  })

  it('drops amounts whose expiry is gone (evicted, or written by the per-id keys of an earlier layout), instead of holding them forever', async () => {
    await store.reserve('b', 'r1', 0.5, 1, TEN_MINUTES)
    await redis.client.del(`{${PREFIX}b}:holds:expiry`)
    await redis.client.hset(`{${PREFIX}b}:holds`, 'legacy', '0.25')
    await redis.client.set(`{${PREFIX}b}:hold:legacy`, '0.25', 'PX', TEN_MINUTES)
    expect(await store.reserve('b', 'r2', 1, 1, TEN_MINUTES)).toEqual({ granted: true, spent: 0, held: 0 })
    expect(await redis.client.hgetall(`{${PREFIX}b}:holds`)).toEqual({ r2: '1' })
    expect(await store.reserve('b', 'r3', 0.1, 1, TEN_MINUTES)).toEqual({ granted: false, spent: 0, held: 1 })
  })

  it('holds a reservation of an endless ttl (1e300 ms) as memoryStore does, until it is settled', async () => {
    expect(await store.reserve('b', 'endless', 0.5, 1, 1e300)).toEqual({ granted: true, spent: 0, held: 0 })
    expect(await store.reserve('b', 'r', 0.75, 1, TEN_MINUTES)).toEqual({ granted: false, spent: 0, held: 0.5 })
    expect(await redis.client.pttl(`{${PREFIX}b}:holds:sum`)).toBeGreaterThan(1e15)
    expect(await store.settle('b', 'endless', 0.25)).toBe(0.25)
    expect(await store.reserve('b', 'r', 0.75, 1, TEN_MINUTES)).toEqual({ granted: true, spent: 0.25, held: 0 })
  })

  it('releases a reservation on settle after its expiry has passed, and one never reserved releases nothing', async () => {
    await store.reserve('b', 'slow', 0.5, 1, 50)
    await store.reserve('b', 'live', 0.25, 1, TEN_MINUTES)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await store.settle('b', 'slow', 0.5)).toBe(0.5)
    expect(await store.settle('b', 'never', 0)).toBe(0.5)
    expect(await store.reserve('b', 'r', 0, 1, TEN_MINUTES)).toEqual({ granted: true, spent: 0.5, held: 0.25 })
  })
})
