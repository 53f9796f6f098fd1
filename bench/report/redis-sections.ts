import type { AttemptLatency, RoundTripsPerAttempt } from '../redis/attempt-cost.ts'
import type { FleetThroughput } from '../redis/fleet-throughput.ts'
import type { ReserveCost } from '../redis/reserve-scaling.ts'
import type { Machine } from '../support/machine.ts'
import { machineLines } from './bench-sections.ts'
import { table } from './format.ts'

/** What `npm run bench:redis` writes to bench/results/redis.json. */
export interface RedisBenchResults {
  readonly machine: Machine
  /** The Node flags of the process that measured (`npm run bench` runs it with its own). */
  readonly flags?: readonly string[]
  readonly redisVersion: string
  readonly quick: boolean
  readonly roundTrips: { readonly three: RoundTripsPerAttempt; readonly budget: RoundTripsPerAttempt }
  readonly latency: readonly AttemptLatency[]
  readonly fleet: readonly FleetThroughput[]
  readonly reserve: readonly ReserveCost[]
}

/** The round trips an attempt may make with the three policies on one store (issue 23): one before the call, one after. */
export const ROUND_TRIP_TARGET = 2

const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '–')
const whole = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–')

/** The BENCHMARKS.md section (and the console tables) of `npm run bench:redis`. */
export function redisSections(r: RedisBenchResults): string[] {
  const out = ['## `npm run bench:redis`: what a fleet’s Redis costs per attempt', '', ...machineLines(r.machine, r.flags ?? [])]
  out.push(
    `One \`redis-server\` ${r.redisVersion} on loopback, started by the bench (no persistence); one ioredis client per process.`,
    'The gate is the one a fleet runs: a `circuitBreaker`, a `sharedBudget` and a `sharedRateLimit` on one `redisStore` (none',
    'ever trips), a price table, the `{action, amount}` schema, and a provider that answers at once with a valid answer, so one',
    `run is one attempt (\`bench/redis/fleet-gate.ts\`).${r.quick ? ' Quick run (`--quick`): short samples.' : ''}`,
    '',
    '### Round trips per attempt',
    '',
    'Counted on the client, attempts one at a time: every command goes through ioredis `sendCommand`; a round trip starts when',
    'a command leaves while none awaits a reply, so a pipeline, or commands sent together before any reply, is one',
    '(`bench/redis/round-trip-counter.ts`). "Before" is what an attempt sends before the provider is called, "after" what it',
    'sends once the provider answered. The server columns come from `INFO commandstats` (commands run inside a script count',
    'there too; execution time only, socket I/O not included).',
    '',
  )
  const tripRow = (label: string, t: RoundTripsPerAttempt): string[] => [
    label,
    fixed(t.before, 2),
    fixed(t.after, 2),
    fixed(t.total, 2),
    t.total <= ROUND_TRIP_TARGET ? `≤ ${ROUND_TRIP_TARGET}: met` : `≤ ${ROUND_TRIP_TARGET}: not met`,
    Object.entries(t.commandsByName)
      .map(([name, n]) => `${fixed(n, 2)} ${name.toUpperCase()}`)
      .join(', '),
    `${fixed(t.serverScripts, 2)} / ${fixed(t.serverCommands, 1)}`,
    fixed(t.serverScriptUs, 1),
  ]
  out.push(
    ...table(
      [
        'policies on one redisStore',
        'before the call',
        'after the call',
        'per attempt',
        'target',
        'commands sent',
        'server: scripts / commands',
        'server exec µs',
      ],
      [tripRow('breaker + budget + rate limit', r.roundTrips.three), tripRow('shared budget alone', r.roundTrips.budget)],
    ),
    '',
    '### Latency of one attempt',
    '',
    'Gate runs one at a time, the configurations interleaved in rounds; nearest-rank percentiles over every run.',
    '',
  )
  const none = r.latency.find((l) => l.policies === 'none')
  out.push(
    ...table(
      ['configuration', 'runs', 'p50 µs', 'p99 µs', 'added p50 µs', 'added p99 µs'],
      r.latency.map((l) => [
        l.label,
        whole(l.runs),
        fixed(l.p50Us),
        fixed(l.p99Us),
        none === undefined || l === none ? '–' : fixed(l.p50Us - none.p50Us),
        none === undefined || l === none ? '–' : fixed(l.p99Us - none.p99Us),
      ]),
    ),
    '',
  )
  const first = r.fleet[0]
  out.push(
    `### Attempts per second from ${first?.processes ?? '?'} processes`,
    '',
    `${first?.processes ?? '?'} Node processes (\`bench/redis/fleet-worker.ts\`), each keeping some gate runs going at once on one connection,`,
    'all on the same keys (one budget, one rate-limit window, one breaker), for the same window; every attempt started in the',
    'window is counted, and the server is read once the last one ended. Runs in flight hold reservations on the budget; the',
    'row with a provider that takes its time keeps many of them in flight, as real models do. Redis CPU is `used_cpu_user +',
    "used_cpu_sys` over the window: execution, socket reads and writes. The Node processes and Redis share this machine's",
    'cores, so attempts/s is bounded by the clients here; the last column is what one Redis core would serve at that CPU per',
    'attempt (Redis runs commands on one thread), before any headroom. Script exec µs is wall-clock time inside the scripts',
    '(`INFO commandstats`): on a machine whose cores are all busy it includes time the server was preempted.',
    '',
    ...table(
      [
        'policies',
        'runs in flight',
        'provider answers in',
        'attempts/s',
        'errors',
        'scripts / attempt',
        'Redis CPU (share of a core)',
        'Redis CPU µs / attempt',
        'script exec µs / attempt',
        'one core at 100%: attempts/s',
      ],
      r.fleet.map((f) => [
        f.policies === 'three' ? 'breaker + budget + rate limit' : 'shared budget alone',
        `${f.processes} x ${f.concurrencyPerProcess}`,
        // Results written before the provider delay was measured have none: they answered at once.
        (f.providerMs ?? 0) === 0 ? 'at once' : `${f.providerMs} ms`,
        whole(f.attemptsPerSecond),
        f.errors === 0 ? '0' : `${f.errors} (${f.firstError ?? ''})`,
        fixed(f.scriptsPerAttempt, 2),
        `${fixed(f.redisCpuShare * 100, 0)}%`,
        fixed(f.redisCpuUsPerAttempt),
        fixed(f.redisScriptUsPerAttempt),
        f.redisCpuUsPerAttempt > 0 ? whole(1e6 / f.redisCpuUsPerAttempt) : '–',
      ]),
    ),
    '',
    '### A budget’s reserve + settle against the reservations in flight',
    '',
    'The attempts in flight on a budget (about attempts/s times the provider latency) each hold a reservation; the reserve',
    'script drops the expired ones and adds its own in O(log n + expired), so this should stay flat. Reservations of other',
    'attempts taken beforehand through the store; one reserve + settle at a time (`bench/redis/reserve-scaling.ts`).',
    '',
    ...table(
      ['reservations in flight', 'pairs', 'server exec µs per reserve + settle', 'client p50 µs (2 round trips)'],
      r.reserve.map((c) => [whole(c.held), whole(c.pairs), fixed(c.serverUs), fixed(c.clientP50Us)]),
    ),
    '',
  )
  return out
}
