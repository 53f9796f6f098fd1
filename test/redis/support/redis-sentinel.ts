import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { BOUNDED } from './redis-client.ts'
import { freePort, pings } from './redis-server.ts'
import { type ReplicationLink, startReplicationLink } from './replication-link.ts'

/** The name the sentinels monitor the master under. */
export const MASTER_NAME = 'mymaster'

/** One redis-server of a {@link RedisSentinel}: its port, and signals for the tests. */
export interface SentinelNode {
  readonly port: number
  /** Sends `signal` to the server process (`SIGKILL` kills it, `SIGSTOP` stalls it). */
  signal(signal: NodeJS.Signals): void
  /**
   * Starts the server again on its port, empty (no persistence), after it was killed: as a replica
   * of `replicaOf` (what an orchestrator does after a failover; the sentinels alone take about ten
   * seconds to turn a returning master into a replica).
   */
  start(replicaOf: number): Promise<void>
}

/** A master, one replica and three sentinels on loopback, without persistence, in a temporary folder. */
export interface RedisSentinel {
  /** The two data servers: the master first, as started. */
  readonly nodes: readonly [SentinelNode, SentinelNode]
  readonly sentinelPorts: readonly number[]
  /** The relay the replica reaches its first master through, when started with `{ relayReplica: true }`. */
  readonly link: ReplicationLink | undefined
  /** The port of the master, as the sentinels answer it now. */
  masterPort(): Promise<number>
  /** Waits until the sentinels name a master other than `port`, and returns it. */
  failedOver(port: number, timeoutMs: number): Promise<number>
  /** Waits until the server on `port` is a connected replica of the master on `master`. */
  replicating(port: number, master: number, timeoutMs: number): Promise<void>
  /** Stops every process and removes the temporary folder. */
  stop(): Promise<void>
}

const READY_TIMEOUT_MS = 15_000
// Small timeouts: a failover in about a second and a half.
const DOWN_AFTER_MS = 500
const FAILOVER_TIMEOUT_MS = 2_000
const SENTINELS = 3

/**
 * Starts a master, a replica of it, and three sentinels that monitor it as `mymaster` (quorum 2,
 * `down-after-milliseconds` 500, `failover-timeout` 2000), and waits until every sentinel knows the
 * replica and the other sentinels. Sentinels run as `redis-server <conf> --sentinel` (what Debian's
 * `redis-sentinel` is), so a `redis-server` is all it needs. With `relayReplica`, the replica reaches
 * the master through a {@link ReplicationLink} the test can freeze.
 */
export async function startRedisSentinel(options: { readonly relayReplica?: boolean } = {}): Promise<RedisSentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'rg-sentinel-'))
  const children: { child: ChildProcess; exited: Promise<void> }[] = []
  let link: ReplicationLink | undefined
  const stop = async (): Promise<void> => {
    for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await Promise.all(children.map((c) => c.exited))
    await link?.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const launch = (args: readonly string[]): ChildProcess => {
    const child = spawn('redis-server', args, { stdio: 'ignore' })
    children.push({ child, exited: new Promise<void>((resolve) => child.once('exit', () => resolve())) })
    return child
  }
  try {
    const [masterPort, replicaPort] = [await freePort(), await freePort()]
    const dataNode = (port: number, replicaOf: number | undefined): SentinelNode => {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--loglevel', 'warning']
      // A full sync at once (no 5 s wait for more replicas), straight over the socket.
      args.push('--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0', '--repl-ping-replica-period', '1')
      let child = launch(replicaOf === undefined ? args : [...args, '--replicaof', '127.0.0.1', String(replicaOf)])
      return {
        port,
        signal: (signal) => void child.kill(signal),
        async start(master) {
          child = launch([...args, '--replicaof', '127.0.0.1', String(master)])
          await until(Date.now() + READY_TIMEOUT_MS, () => pings(port), `restarted server ${port} answers PING`)
        },
      }
    }
    if (options.relayReplica === true) link = await startReplicationLink(masterPort)
    const nodes = [dataNode(masterPort, undefined), dataNode(replicaPort, link?.port ?? masterPort)] as const
    const deadline = Date.now() + READY_TIMEOUT_MS
    for (const port of [masterPort, replicaPort]) await until(deadline, () => pings(port), `server ${port} answers PING`)
    // The sentinels learn of the replica from the master's INFO, which they read every 10 s: have it
    // listed there before they start, so that the first read finds it.
    await until(deadline, async () => String(await oneShot(replicaPort, ['INFO', 'replication'])).includes('master_link_status:up'), 'the replica is in sync')
    const sentinelPorts: number[] = []
    for (let i = 0; i < SENTINELS; i++) {
      const port = await freePort()
      const conf = join(dir, `sentinel-${port}.conf`)
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${MASTER_NAME} ${FAILOVER_TIMEOUT_MS}`,
          `sentinel parallel-syncs ${MASTER_NAME} 1`,
          '',
        ].join('\n'),
      )
      launch([conf, '--sentinel', '--loglevel', 'warning'])
      sentinelPorts.push(port)
    }
    const ask = (port: number, ...command: (string | number)[]) => oneShot(port, command)
    await until(
      deadline,
      async () => {
        for (const port of sentinelPorts) {
          const info = await ask(port, 'SENTINEL', 'MASTER', MASTER_NAME)
          const fields = Array.isArray(info) ? pairs(info) : {}
          if (fields['num-slaves'] !== '1' || fields['num-other-sentinels'] !== String(SENTINELS - 1)) return false
        }
        return true
      },
      'every sentinel knows the replica and the other sentinels',
    )
    const masterPortNow = async (): Promise<number> => {
      for (const port of sentinelPorts) {
        const reply = await ask(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)
        if (Array.isArray(reply) && reply.length === 2) return Number(reply[1])
      }
      throw new Error('no sentinel names a master')
    }
    return {
      nodes,
      sentinelPorts,
      link,
      masterPort: masterPortNow,
      async failedOver(port, timeoutMs) {
        let now = port
        await until(
          Date.now() + timeoutMs,
          async () => {
            now = await masterPortNow().catch(() => port)
            return now !== port
          },
          `the sentinels promote a replica of ${port}`,
        )
        return now
      },
      async replicating(port, master, timeoutMs) {
        await until(
          Date.now() + timeoutMs,
          async () => {
            const info = String(await ask(port, 'INFO', 'replication'))
            return info.includes(`master_port:${master}`) && info.includes('master_link_status:up')
          },
          `server ${port} replicates ${master}`,
        )
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** An ioredis client that finds the master through the sentinels, with bounded failure modes: it reconnects every 50 ms. */
export function sentinelClient(sentinel: Pick<RedisSentinel, 'sentinelPorts'>): Redis {
  const client = new Redis({
    sentinels: sentinel.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
    name: MASTER_NAME,
    ...BOUNDED,
    sentinelRetryStrategy: () => 50,
    retryStrategy: () => 50,
    lazyConnect: true,
  })
  // A lost master is expected in these tests; without a listener ioredis logs it as unhandled.
  client.on('error', () => {})
  return client
}

/**
 * A {@link sentinelClient}, once ready. A sentinel may still name the old master just after a
 * failover: ioredis then drops that connection and asks again, so a first failed connect is retried.
 */
export async function connectSentinelClient(sentinel: Pick<RedisSentinel, 'sentinelPorts'>, timeoutMs = READY_TIMEOUT_MS): Promise<Redis> {
  const client = sentinelClient(sentinel)
  // Not events.once: it rejects on the first 'error', and a failed first connect is expected here.
  const ready = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs)
    client.once('ready', () => {
      clearTimeout(timer)
      resolve(true)
    })
  })
  client.connect().catch(() => {})
  if (!(await ready)) {
    client.disconnect()
    throw new Error(`no master found through the sentinels within ${timeoutMs} ms`)
  }
  return client
}

/** One command on a fresh connection; `undefined` when the server does not answer within a second. */
async function oneShot(port: number, command: readonly (string | number)[]): Promise<unknown> {
  const client = new Redis({ host: '127.0.0.1', port, ...BOUNDED, retryStrategy: () => null, lazyConnect: true, commandTimeout: 1_000 })
  client.on('error', () => {})
  try {
    await client.connect()
    return await client.call(String(command[0]), ...command.slice(1))
  } catch {
    return undefined
  } finally {
    client.disconnect()
  }
}

function pairs(list: readonly unknown[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (let i = 0; i + 1 < list.length; i += 2) out[String(list[i])] = String(list[i + 1])
  return out
}

async function until(deadline: number, ready: () => boolean | Promise<boolean>, what: string): Promise<void> {
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`Redis Sentinel not ready in time: waiting until ${what}`)
    await sleep(50)
  }
}
