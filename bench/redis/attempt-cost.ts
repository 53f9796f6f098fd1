import type { Redis } from 'ioredis'
import { redisStore } from '../../src/redis.ts'
import { FLEET_REQUEST, fleetGate, instantProvider, type FleetPolicies } from './fleet-gate.ts'
import { serverStats, serverWork } from './redis-info.ts'
import { countRoundTrips } from './round-trip-counter.ts'

/** What one gate attempt sends to Redis, with a breaker, a budget and a rate limit on one store. */
export interface RoundTripsPerAttempt {
  readonly attempts: number
  /** Round trips per attempt, before the provider is called and after it answered (means over `attempts`). */
  readonly before: number
  readonly after: number
  readonly total: number
  /** The most round trips any one attempt made. */
  readonly max: number
  /** Commands per attempt, as the client counted them, by name. */
  readonly commandsByName: Readonly<Record<string, number>>
  /** Scripts per attempt, as the server counted them (`INFO commandstats`). */
  readonly serverScripts: number
  /** Commands per attempt the server counted, those run inside the scripts included. */
  readonly serverCommands: number
  /** Microseconds the server spent executing the attempt's scripts (`INFO commandstats`; socket I/O not included). */
  readonly serverScriptUs: number
}

/**
 * Runs `attempts` gate runs one after the other (each is one attempt: the answer is valid) on
 * `client`, counting round trips with the client's counter and commands with the server's
 * statistics (read over `admin`, another connection). Warms up first, so the store's scripts are
 * cached on the server (the first use of a script costs one more round trip: `EVALSHA`, then `EVAL`).
 */
export async function roundTripsPerAttempt(client: Redis, admin: Redis, attempts: number, policies: FleetPolicies = 'three'): Promise<RoundTripsPerAttempt> {
  const counter = countRoundTrips(client)
  let atCall = 0
  const gate = fleetGate(
    policies,
    redisStore(client, { keyPrefix: 'rg-bench:' }),
    instantProvider(() => (atCall = counter.read().roundTrips)),
  )
  try {
    for (let i = 0; i < 20; i++) await gate.run(FLEET_REQUEST)
    counter.reset()
    const start = await serverStats(admin)
    let before = 0
    let after = 0
    let max = 0
    for (let i = 0; i < attempts; i++) {
      const first = counter.read().roundTrips
      atCall = first
      await gate.run(FLEET_REQUEST)
      const last = counter.read().roundTrips
      before += atCall - first
      after += last - atCall
      max = Math.max(max, last - first)
    }
    const work = serverWork(start, await serverStats(admin))
    const byName = Object.fromEntries(Object.entries(counter.read().byName).map(([name, n]) => [name, n / attempts]))
    return {
      attempts,
      before: before / attempts,
      after: after / attempts,
      total: (before + after) / attempts,
      max,
      commandsByName: byName,
      serverScripts: work.scripts / attempts,
      serverCommands: work.commands / attempts,
      serverScriptUs: work.scriptUsec / attempts,
    }
  } finally {
    counter.detach()
  }
}

/** Latency of one attempt (one gate run), in µs. */
export interface AttemptLatency {
  readonly policies: FleetPolicies
  readonly label: string
  readonly runs: number
  readonly p50Us: number
  readonly p99Us: number
}

const LABELS: Record<FleetPolicies, string> = {
  none: 'no policies',
  memory: 'breaker + budget + rate limit on memoryStore()',
  three: 'breaker + budget + rate limit on redisStore (loopback)',
  budget: 'shared budget alone on redisStore (loopback)',
}

/**
 * Times gate runs one at a time for each configuration, interleaved in `rounds` so that a change of
 * load on the machine touches every configuration alike; p50 and p99 over all runs of each.
 */
export async function attemptLatencies(client: Redis, runsPerRound: number, rounds: number): Promise<AttemptLatency[]> {
  const store = redisStore(client, { keyPrefix: 'rg-bench-latency:' })
  const configs: FleetPolicies[] = ['none', 'memory', 'three']
  const gates = configs.map((policies) => ({ policies, gate: fleetGate(policies, store, instantProvider()), times: [] as number[] }))
  for (const { gate } of gates) for (let i = 0; i < 200; i++) await gate.run(FLEET_REQUEST)
  for (let round = 0; round < rounds; round++) {
    for (const { gate, times } of gates) {
      for (let i = 0; i < runsPerRound; i++) {
        const started = performance.now()
        await gate.run(FLEET_REQUEST)
        times.push((performance.now() - started) * 1000)
      }
    }
  }
  return gates.map(({ policies, times }) => {
    times.sort((a, b) => a - b)
    return { policies, label: LABELS[policies], runs: times.length, p50Us: percentile(times, 50), p99Us: percentile(times, 99) }
  })
}

/** The `p`-th percentile of ascending `sorted` (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((sorted.length * p) / 100) - 1))] as number
}
