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
 * The attempts in flight on one budget (about the fleet's attempts per second times the provider's
 * latency) each hold a reservation; a reserve drops the expired ones and adds its own, in O(log n +
 * expired), so its cost should not grow with them. This measures one reserve + settle with `held`
 * reservations live, taken beforehand through the store (as `held` attempts of other processes would
 * have left them).
 */
export async function reserveCost(client: Redis, admin: Redis, held: number, pairs: number): Promise<ReserveCost> {
  const key = `budget-${held}`
  const holds = besideKey(PREFIX + key, ':holds')
  const store = redisStore(client, { keyPrefix: PREFIX })
  // Reservations of other attempts, taken through the store (whatever its layout), 1,000 at a time.
  for (let from = 0; from < held; from += 1_000) {
    const batch = Array.from({ length: Math.min(held, from + 1_000) - from }, (_, i) => store.reserve(key, `other-${from + i}`, 0.0001, 1e9, HOLD_TTL_MS))
    await Promise.all(batch)
  }
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
