import { Redis } from 'ioredis'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll } from 'vitest'
import { redisServer } from '../../support/requirements.ts'
import { BOUNDED } from './redis-client.ts'
import { connectSentinelClient, startRedisSentinel, type RedisSentinel } from './redis-sentinel.ts'

const START_TIMEOUT_MS = 30_000
const FAILOVER_TIMEOUT_MS = 10_000
// The killed master, restarted as a replica, takes a full sync of what the race wrote meanwhile: on a
// loaded CI machine with a conversation race's data, that has taken more than 10 s.
const RESYNC_TIMEOUT_MS = 45_000
// A sentinel does not fail the same master over again within twice its failover-timeout (2 s).
const BETWEEN_FAILOVERS_MS = 4_500

/** What one failover took, in ms from the SIGKILL. */
export interface Failover {
  /** When the master was killed (`Date.now()`). */
  readonly killedAt: number
  /** Until the sentinels named the replica master. */
  readonly promotedMs: number
  /** Until the killed server, started again empty, was a connected replica of the new master. */
  readonly replicatingMs: number
}

/** A Sentinel deployment for one test file; read after `beforeAll`. */
export interface RedisSentinelFixture {
  readonly sentinel: RedisSentinel
  /** A client that finds the master through the sentinels, connected. */
  connect(): Promise<Redis>
  /** A plain client of the current master (not following failovers), connected. */
  master(): Promise<Redis>
  /**
   * Kills the current master with SIGKILL, waits until the sentinels promote its replica, then
   * starts the killed server again, empty, as a replica of the new master, and waits until it is in
   * sync: the deployment is whole again for the next test. A second failover first waits until the
   * sentinels allow it (4.5 s after the first promotion). `beforeResync` runs once the killed server
   * is started again and before the wait for its sync: a race that writes without pause stops there,
   * so the sync of a fast-growing dataset is not what the test waits on (on a loaded machine a full
   * resync under 32 unpaused writers could take longer than its bound).
   */
  failover(beforeResync?: () => Promise<void>): Promise<Failover>
}

/**
 * Starts a master, a replica and three sentinels before the file's tests and stops them (processes
 * killed, temporary folder removed) after them. Without a redis-server it starts nothing: the file's
 * suites are skipped (or failed, under CI) by `describeWith(redisServer)`.
 */
export function useRedisSentinel(options: { readonly relayReplica?: boolean } = {}): RedisSentinelFixture {
  let sentinel: RedisSentinel | undefined
  const clients: Redis[] = []
  let allowedAt = 0
  beforeAll(async () => {
    if (!redisServer.met) return
    sentinel = await startRedisSentinel(options)
  }, START_TIMEOUT_MS)
  afterAll(async () => {
    for (const c of clients) c.disconnect()
    await sentinel?.stop()
  })
  const ready = (): RedisSentinel => {
    if (sentinel === undefined) throw new Error('useRedisSentinel: the deployment is read before beforeAll ran')
    return sentinel
  }
  const kept = (client: Redis): Redis => {
    clients.push(client)
    client.on('error', () => {})
    return client
  }
  return {
    get sentinel() {
      return ready()
    },
    async connect() {
      return kept(await connectSentinelClient(ready()))
    },
    async master() {
      const client = kept(new Redis({ host: '127.0.0.1', port: await ready().masterPort(), ...BOUNDED, lazyConnect: true }))
      await client.connect()
      return client
    },
    async failover(beforeResync?: () => Promise<void>) {
      const s = ready()
      await sleep(Math.max(0, allowedAt - Date.now()))
      const port = await s.masterPort()
      const node = s.nodes.find((n) => n.port === port)
      if (node === undefined) throw new Error(`the sentinels name an unknown master ${port}`)
      const killedAt = Date.now()
      node.signal('SIGKILL')
      const promoted = await s.failedOver(port, FAILOVER_TIMEOUT_MS)
      const promotedMs = Date.now() - killedAt
      allowedAt = Date.now() + BETWEEN_FAILOVERS_MS
      await node.start(promoted)
      await beforeResync?.()
      await s.replicating(port, promoted, RESYNC_TIMEOUT_MS)
      return { killedAt, promotedMs, replicatingMs: Date.now() - killedAt }
    },
  }
}
