import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { redisSessionStore } from '../../../src/redis.ts'
import { exchangeOf, exchangesOf } from '../../sessions/support/session-store-contract.ts'
import { runWorker } from './run-worker.ts'
import type { Failover, RedisSentinelFixture } from './use-redis-sentinel.ts'

const WORKER = fileURLToPath(new URL('./failover-worker.ts', import.meta.url))
const WORKER_TIMEOUT_MS = 40_000
export const PROCESSES = 4
export const SPENDERS = 50
export const BUDGET_USD = 2
const COUNTER = 'failover-budget:budget'
/**
 * Replication is asynchronous: what a failover loses was acknowledged within the replica's lag
 * before the kill. Loopback lag is well under a millisecond; a second covers a machine under load.
 */
export const LAG_BOUND_MS = 1_000
/** The durable mode the races use. */
export const DURABLE = { replicas: 1, timeoutMs: 200 } as const

interface WorkerReport {
  readonly calls: number
  readonly billedUsd: number
  readonly unsettledUsd: number
  readonly failures: Record<string, number>
  readonly acked: readonly ['reserve' | 'settle', number, number][]
}

/** What the fleet did around one failover, summed over its processes. */
export interface BudgetRace {
  readonly failover: Failover
  readonly chargedUsd: number
  readonly billedUsd: number
  /** Charges of attempts whose settle failed (the master was gone, or a replica did not confirm): billed, never acknowledged. */
  readonly unsettledUsd: number
  /** Acknowledged charges the new master does not have. */
  readonly lostUsd: number
  /** Reservations and charges acknowledged in the last LAG_BOUND_MS before the kill. */
  readonly lastMomentUsd: { readonly reserve: number; readonly settle: number }
  /** Charges acknowledged after the promotion: the fleet went on. */
  readonly afterPromotion: number
  /** Failed runs by the code of their cause. */
  readonly failures: Record<string, number>
}

/**
 * Races PROCESSES processes of SPENDERS spenders on a BUDGET_USD shared budget, kills the master
 * once 30% of it is charged, and sums what happened. Prints one line of figures.
 */
export async function budgetRaceThroughFailover(redis: RedisSentinelFixture, durable: boolean): Promise<BudgetRace> {
  const master = await redis.master()
  await master.flushall()
  await master.wait(1, 1_000)
  const ports = redis.sentinel.sentinelPorts.join(',')
  const workers = Promise.all(
    Array.from({ length: PROCESSES }, (_, p) =>
      runWorker<WorkerReport>(WORKER, [ports, String(SPENDERS), String(p + 1), durable ? '1' : '0'], WORKER_TIMEOUT_MS, 'failover worker'),
    ),
  )
  const killed = (async () => {
    while (Number((await master.get(COUNTER)) ?? 0) < 0.3 * BUDGET_USD) await sleep(5)
    return redis.failover()
  })()
  const [reports, failover] = await Promise.all([workers, killed])
  const client = await redis.connect()
  const chargedUsd = Number(await client.get(COUNTER))
  const acked = reports.flatMap((r) => r.acked)
  const sum = (what: 'reserve' | 'settle', from: number, to: number): number =>
    acked.filter(([w, t]) => w === what && t >= from && t <= to).reduce((n, [, , usd]) => n + usd, 0)
  const failures: Record<string, number> = {}
  for (const r of reports) for (const [code, n] of Object.entries(r.failures)) failures[code] = (failures[code] ?? 0) + n
  const race: BudgetRace = {
    failover,
    chargedUsd,
    billedUsd: reports.reduce((n, r) => n + r.billedUsd, 0),
    unsettledUsd: reports.reduce((n, r) => n + r.unsettledUsd, 0),
    lostUsd: Math.max(0, sum('settle', 0, Number.POSITIVE_INFINITY) - chargedUsd),
    lastMomentUsd: {
      reserve: sum('reserve', failover.killedAt - LAG_BOUND_MS, failover.killedAt),
      settle: sum('settle', failover.killedAt - LAG_BOUND_MS, failover.killedAt),
    },
    afterPromotion: acked.filter(([w, t]) => w === 'settle' && t > failover.killedAt + failover.promotedMs).length,
    failures,
  }
  console.log(
    `[sentinel failover${durable ? ', durable' : ''}] ${PROCESSES} processes x ${SPENDERS} spenders on $${BUDGET_USD}: ` +
      `promoted after ${failover.promotedMs} ms, replica back in sync after ${failover.replicatingMs} ms; ` +
      `charged $${chargedUsd.toFixed(6)}, billed $${race.billedUsd.toFixed(6)} (overspend $${Math.max(0, race.billedUsd - BUDGET_USD).toFixed(6)}), ` +
      `acknowledged charges lost $${race.lostUsd.toFixed(6)}, charges never acknowledged $${race.unsettledUsd.toFixed(6)}, ` +
      `acknowledged in the last ${LAG_BOUND_MS} ms: reservations $${race.lastMomentUsd.reserve.toFixed(6)}, charges $${race.lastMomentUsd.settle.toFixed(6)}; ` +
      `${race.afterPromotion} charges after the promotion; failed runs ${JSON.stringify(failures)}`,
  )
  return race
}

const CONVERSATIONS = 8
const COMMITTERS = 4

/** What concurrent committers saw around one failover. */
export interface CommitRace {
  readonly failover: Failover
  /** Commits acknowledged, in all. */
  readonly acknowledged: number
  /** Acknowledged commits the new master does not have. */
  readonly lost: number
  /** Of those, the ones acknowledged in the last LAG_BOUND_MS before the kill. */
  readonly lostInLastMoment: number
  /** Commits that failed (rejected: the master was gone, or a replica did not confirm). */
  readonly failed: number
  /** Commits acknowledged after the promotion: the fleet went on. */
  readonly afterPromotion: number
}

/**
 * COMMITTERS clients (each its own connection through the sentinels) commit exchanges to
 * CONVERSATIONS conversations, a loop per conversation and client, while the master is killed;
 * they go on one second past the failover. Then every conversation is read back (each exchange
 * whole, never interleaved) and every acknowledged commit is looked for.
 */
export async function commitRaceThroughFailover(redis: RedisSentinelFixture, durable: boolean): Promise<CommitRace> {
  const master = await redis.master()
  await master.flushall()
  await master.wait(1, 1_000)
  const clients = await Promise.all(Array.from({ length: COMMITTERS }, () => redis.connect()))
  const stores = clients.map((c) => redisSessionStore(c, { keyPrefix: 'failover-chat:', ...(durable ? { durable: DURABLE } : {}) }))
  const acked = new Map<string, number>()
  let failed = 0
  let stop = false
  let serial = 0
  const committer = async (store: (typeof stores)[number], conversation: string): Promise<void> => {
    while (!stop) {
      const tag = `${conversation}.${++serial}`
      try {
        await store.append(conversation, { exchange: exchangeOf(tag), expectedVersion: 0, onConflict: 'append' })
        acked.set(tag, Date.now())
        // Paced: on a fast machine the unpaced loops stored 300,000 exchanges in 3 s, and the killed
        // server's resync of all of them then outlasted its wait (a flake of the fixture, not of the store).
        await sleep(1)
      } catch {
        failed++
        await sleep(20)
      }
    }
  }
  const conversations = Array.from({ length: CONVERSATIONS }, (_, i) => `c${i}`)
  const loops = stores.flatMap((store) => conversations.map((id) => committer(store, id)))
  await sleep(300)
  // The commits go on through the kill, the promotion and one second after it; they stop before the
  // killed server's resync is awaited (the deployment made whole for the next test).
  const failover = await redis.failover(async () => {
    await sleep(1_000)
    stop = true
    await Promise.all(loops)
  })
  const stored = new Set<string>()
  for (const id of conversations) for (const tag of exchangesOf((await stores[0]?.load(id))?.messages ?? [])) stored.add(tag)
  const lostTags = [...acked.keys()].filter((tag) => !stored.has(tag))
  const race: CommitRace = {
    failover,
    acknowledged: acked.size,
    lost: lostTags.length,
    lostInLastMoment: lostTags.filter((tag) => (acked.get(tag) as number) >= failover.killedAt - LAG_BOUND_MS).length,
    failed,
    afterPromotion: [...acked.values()].filter((t) => t > failover.killedAt + failover.promotedMs).length,
  }
  console.log(
    `[sentinel failover${durable ? ', durable' : ''}] ${COMMITTERS} clients x ${CONVERSATIONS} conversations committing: ` +
      `promoted after ${failover.promotedMs} ms; ${race.acknowledged} commits acknowledged, ${race.lost} of them lost ` +
      `(${race.lostInLastMoment} acknowledged in the last ${LAG_BOUND_MS} ms), ${race.failed} failed, ${race.afterPromotion} after the promotion`,
  )
  return race
}
