import type { Redis } from 'ioredis'
import { redisStore } from '../../src/redis.ts'
import { besideKey } from '../../src/store/redis/slot-keys.ts'
import { percentile } from './attempt-cost.ts'
import { serverStats, serverWork } from './redis-info.ts'

/** What one attempt's reserve and settle cost when `held` other reservations of the same budget are live. */
export interface ReserveCost {
  readonly held: number
  readonly pairs: number
  /** Server execution time of one reserve + settle, µs (`INFO commandstats`). */
  readonly serverUs: number
  /** Client-side time of one reserve + settle, p50, µs (two round trips on loopback). */
  readonly clientP50Us: number
}

const PREFIX = 'rg-bench-holds:'
const HOLD_TTL_MS = 600_000

/**
 * A shared budget's reserve script sums every live reservation of its budget (it reads the hash of
 * reservations and checks each one's key), so its cost grows with the attempts in flight on that
 * budget: about the fleet's attempts per second times the provider's latency. This measures one
 * reserve + settle with `held` reservations live, written beforehand straight into the budget's hash
 * and hold keys (as `held` attempts of other processes would have left them).
 */
export async function reserveCost(client: Redis, admin: Redis, held: number, pairs: number): Promise<ReserveCost> {
  const key = `budget-${held}`
  const full = PREFIX + key
  const holds = besideKey(full, ':holds')
  const hold = besideKey(full, ':hold:')
  for (let from = 0; from < held; from += 1_000) {
    const batch = admin.pipeline()
    for (let i = from; i < Math.min(held, from + 1_000); i++) {
      batch.hset(holds, `other-${i}`, '0.0001')
      batch.set(`${hold}other-${i}`, '0.0001', 'PX', HOLD_TTL_MS)
    }
    await batch.exec()
  }
  await admin.pexpire(holds, HOLD_TTL_MS)
  const store = redisStore(client, { keyPrefix: PREFIX })
  // Warm-up: caches both scripts and writes the budget's epoch.
  for (let i = 0; i < 5; i++) {
    await store.reserve(key, `warm-${i}`, 0.0001, 1e9, HOLD_TTL_MS)
    await store.settle(key, `warm-${i}`, 0.0001)
  }
  const times: number[] = []
  const before = await serverStats(admin)
  for (let i = 0; i < pairs; i++) {
    const started = performance.now()
    await store.reserve(key, `mine-${i}`, 0.0001, 1e9, HOLD_TTL_MS)
    await store.settle(key, `mine-${i}`, 0.0001)
    times.push((performance.now() - started) * 1000)
  }
  const work = serverWork(before, await serverStats(admin))
  const live = await admin.hlen(holds)
  if (live !== held) throw new Error(`reserveCost: ${live} reservations live after the run, expected ${held}`)
  times.sort((a, b) => a - b)
  return { held, pairs, serverUs: work.scriptUsec / pairs, clientP50Us: percentile(times, 50) }
}
