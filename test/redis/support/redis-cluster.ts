import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Cluster } from 'ioredis'
import { BOUNDED } from './redis-client.ts'
import { freePort } from './redis-server.ts'

/** A Redis Cluster of 3 masters and 3 replicas on loopback, without persistence, in a temporary folder. */
export interface RedisCluster {
  readonly ports: readonly number[]
  /** Stops every server and removes the temporary folder. */
  stop(): Promise<void>
}

const NODES = 6
const READY_TIMEOUT_MS = 15_000

/** Starts the servers, joins them with `redis-cli --cluster create` and waits for `cluster_state:ok` on every node. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'rg-cluster-'))
  const nodes: { child: ChildProcess; exited: Promise<void> }[] = []
  const ports: number[] = []
  const stop = async (): Promise<void> => {
    for (const { child } of nodes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await Promise.all(nodes.map((n) => n.exited))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (let i = 0; i < NODES; i++) {
      const port = await freePort()
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)]
      args.push('--dir', dir, '--save', '', '--appendonly', 'no', '--loglevel', 'warning', '--cluster-node-timeout', '2000')
      const child = spawn('redis-server', args, { stdio: 'ignore' })
      nodes.push({ child, exited: new Promise<void>((resolve) => child.once('exit', () => resolve())) })
      ports.push(port)
    }
    const deadline = Date.now() + READY_TIMEOUT_MS
    for (const port of ports) await until(deadline, () => cli(port, 'PING') === 'PONG', `node ${port} answers PING`)
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], {
      encoding: 'utf8',
      timeout: READY_TIMEOUT_MS,
    })
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`)
    for (const port of ports) await until(deadline, () => cli(port, 'CLUSTER', 'INFO').includes('cluster_state:ok'), `node ${port} reports cluster_state:ok`)
    return { ports, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** An ioredis `Cluster` client of `cluster`, connected, with bounded failure modes. */
export async function connectCluster(cluster: RedisCluster): Promise<Cluster> {
  const client = new Cluster(
    cluster.ports.slice(0, 3).map((port) => ({ host: '127.0.0.1', port })),
    { enableOfflineQueue: false, redisOptions: BOUNDED, lazyConnect: true },
  )
  await client.connect()
  return client
}

/** True when `redis-cli` (which creates the cluster) is on PATH beside `redis-server`. */
export function hasRedisCli(): boolean {
  const probe = spawnSync('redis-cli', ['--version'], { stdio: 'ignore' })
  return probe.error === undefined && probe.status === 0
}

function cli(port: number, ...command: string[]): string {
  const reply = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...command], { encoding: 'utf8', timeout: 2_000 })
  return (reply.stdout ?? '').trim()
}

async function until(deadline: number, ready: () => boolean, what: string): Promise<void> {
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`Redis Cluster not ready in time: waiting until ${what}`)
    await sleep(50)
  }
}
