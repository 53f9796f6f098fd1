/**
 * `npm run bench:redis`: what a fleet's Redis costs per gate attempt, with a circuit breaker, a
 * shared budget and a shared rate limit on one `redisStore` (issue 23, item 5). Starts its own
 * `redis-server` on a loopback port (no persistence) and stops it after; prints the tables, writes
 * bench/results/redis.json and regenerates BENCHMARKS.md, which shows it. `npm run bench` runs it
 * too when `redis-server` is installed. `--quick` for short runs.
 *
 * - round trips per attempt, before the provider call and after it (ioredis `sendCommand` counted;
 *   a pipeline or one script is one round trip), and the server's own count (`INFO commandstats`);
 * - latency p50/p99 of an attempt: no policies, the three on `memoryStore()`, the three on Redis;
 * - attempts per second from 4 processes against the one server, with its CPU (`INFO cpu`);
 * - the cost of a budget's reserve + settle against the reservations in flight on that budget.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { Redis } from 'ioredis'
import { startRedisServer } from '../test/redis/support/redis-server.ts'
import { writeReport } from './report.ts'
import { redisSections, type RedisBenchResults } from './report/redis-sections.ts'
import { attemptLatencies, roundTripsPerAttempt } from './redis/attempt-cost.ts'
import { fleetThroughput } from './redis/fleet-throughput.ts'
import { reserveCost } from './redis/reserve-scaling.ts'
import { machine } from './support/machine.ts'

/** Where `npm run bench:redis` writes its figures. */
export const REDIS_RESULTS = path.resolve(import.meta.dirname, 'results/redis.json')

/**
 * Processes of the fleet and the gate runs each keeps going at once: many, then a few (few
 * reservations in flight), then many more with a provider that takes `slowMs` to answer (many
 * reservations in flight, as with real models).
 */
const FLEET = { processes: 4, concurrency: 50, few: 5, many: 250, slowMs: 100 } as const

/** Live reservations on one budget at which a reserve + settle is measured. */
const HELD = [0, 100, 1_000, 10_000] as const

/** True when `redis-server` is on PATH. */
export function hasRedisServer(): boolean {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' })
  return probe.error === undefined && probe.status === 0
}

/** Runs every measurement against a redis-server of its own, writes bench/results/redis.json and returns the figures. */
export async function redisBench(quick: boolean): Promise<RedisBenchResults> {
  const startMachine = machine()
  const server = await startRedisServer()
  const connect = async (): Promise<Redis> => {
    const client = new Redis({ host: server.host, port: server.port, maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true })
    await client.connect()
    return client
  }
  const client = await connect()
  const admin = await connect()
  try {
    const version = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? '?'
    console.log('round trips per attempt')
    const roundTrips = {
      three: await roundTripsPerAttempt(client, admin, quick ? 100 : 500),
      budget: await roundTripsPerAttempt(client, admin, quick ? 100 : 500, 'budget'),
    }
    console.log('latency per attempt')
    const latency = await attemptLatencies(client, quick ? 300 : 1_000, quick ? 3 : 5)
    console.log(`${FLEET.processes} processes x ${FLEET.concurrency} concurrent runs, x ${FLEET.few}, x ${FLEET.many} with a ${FLEET.slowMs} ms provider`)
    const seconds = quick ? 2 : 5
    const fleet = []
    for (const [policies, concurrency, providerMs] of [
      ['three', FLEET.concurrency, 0],
      ['budget', FLEET.concurrency, 0],
      ['three', FLEET.few, 0],
      ['three', FLEET.many, FLEET.slowMs],
    ] as const) {
      fleet.push(await fleetThroughput(admin, server.port, policies, { processes: FLEET.processes, concurrency, seconds, providerMs }))
    }
    console.log('reserve + settle against reservations in flight')
    const reserve = []
    for (const held of HELD) reserve.push(await reserveCost(client, admin, held, quick ? 100 : 300))
    const results: RedisBenchResults = { machine: startMachine, flags: process.execArgv, redisVersion: version, quick, roundTrips, latency, fleet, reserve }
    writeFileSync(REDIS_RESULTS, `${JSON.stringify(results, null, 2)}\n`)
    return results
  } finally {
    client.disconnect()
    admin.disconnect()
    await server.stop()
  }
}

if (import.meta.filename === process.argv[1]) {
  if (!hasRedisServer()) {
    console.log('bench:redis skipped: redis-server not on PATH (apt-get install redis-server)')
    process.exitCode = 1
  } else {
    const results = await redisBench(process.argv.includes('--quick'))
    console.log(`\n${redisSections(results).join('\n')}`)
    writeReport()
    console.log(`wrote ${path.relative(process.cwd(), REDIS_RESULTS)} and BENCHMARKS.md`)
  }
}
