import { spawn } from 'node:child_process'
import path from 'node:path'
import type { Redis } from 'ioredis'
import type { FleetPolicies } from './fleet-gate.ts'
import type { WorkerReport } from './fleet-worker.ts'
import { serverStats, serverWork, type ServerStats } from './redis-info.ts'

/** Attempts per second a fleet of processes ran against one redis-server, and what the server spent. */
export interface FleetThroughput {
  readonly policies: FleetPolicies
  readonly processes: number
  readonly concurrencyPerProcess: number
  /** How long the provider takes to answer, ms (0: at once). */
  readonly providerMs: number
  /** The window measured, s: from `go` to the end of the last attempt of the slowest worker. */
  readonly seconds: number
  readonly attempts: number
  readonly attemptsPerSecond: number
  readonly errors: number
  readonly firstError: string | undefined
  /** Scripts the server ran per attempt. */
  readonly scriptsPerAttempt: number
  /** Share of one core the server process used from `go` until every worker ended (user + system CPU / wall time). */
  readonly redisCpuShare: number
  /** Server CPU per attempt, µs (execution and socket I/O): one core's second over it is what one Redis can serve. */
  readonly redisCpuUsPerAttempt: number
  /** Server execution time of the scripts per attempt, µs (`INFO commandstats`). */
  readonly redisScriptUsPerAttempt: number
}

const WORKER = path.resolve(import.meta.dirname, 'fleet-worker.ts')
// Node 24 strips types by default; Node 22 needs the flag to run the worker's TypeScript.
const NODE_FLAGS = process.features.typescript === false ? ['--experimental-strip-types'] : []
const READY_TIMEOUT_MS = 60_000

/** A started worker: resolves `ready` once it printed `ready`, `done` with its report once it exited. */
interface Worker {
  readonly ready: Promise<void>
  readonly done: Promise<WorkerReport>
  go(durationMs: number): void
  kill(): void
}

function startWorker(args: readonly string[], label: string): Worker {
  const child = spawn(process.execPath, [...NODE_FLAGS, WORKER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let onReady: () => void = () => {}
  let onFail: (error: Error) => void = () => {}
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve
    onFail = reject
  })
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString()
    if (stdout.startsWith('ready\n')) onReady()
  })
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const done = new Promise<WorkerReport>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => {
      const failed = new Error(`${label} exited with ${code ?? signal}: ${stderr || stdout}`)
      onFail(failed)
      if (code !== 0) return reject(failed)
      try {
        resolve(JSON.parse(stdout.slice('ready\n'.length)) as WorkerReport)
      } catch {
        reject(new Error(`${label} printed no report: ${stdout}${stderr}`))
      }
    })
  })
  // The bench may give up on a worker (another failed): its rejection is then read by nobody.
  done.catch(() => undefined)
  ready.catch(() => undefined)
  return {
    ready,
    done,
    go: (durationMs) => child.stdin.end(`go ${durationMs}\n`),
    kill: () => child.kill('SIGKILL'),
  }
}

/**
 * Starts `processes` Node processes, each keeping `concurrency` gate runs (with a provider that
 * answers after `providerMs`, default at once) going against the
 * redis-server at `port` (read over `admin`); once every one is connected and warm, they all run
 * for `seconds` and the server's statistics are read at both ends of that window.
 */
export async function fleetThroughput(
  admin: Redis,
  port: number,
  policies: FleetPolicies,
  options: { readonly processes: number; readonly concurrency: number; readonly seconds: number; readonly providerMs?: number },
): Promise<FleetThroughput> {
  const { processes, concurrency, seconds } = options
  const providerMs = options.providerMs ?? 0
  const durationMs = seconds * 1000
  const workers = Array.from({ length: processes }, (_, i) =>
    startWorker([String(port), policies, String(concurrency), String(providerMs)], `fleet worker ${i}`),
  )
  let reports: WorkerReport[]
  let before: ServerStats
  let after: ServerStats
  let wallSeconds: number
  try {
    await withTimeout(Promise.all(workers.map((w) => w.ready)), READY_TIMEOUT_MS, 'the fleet workers did not get ready')
    before = await serverStats(admin)
    const opened = performance.now()
    for (const w of workers) w.go(durationMs)
    reports = await withTimeout(Promise.all(workers.map((w) => w.done)), durationMs + READY_TIMEOUT_MS, 'the fleet workers did not finish')
    // Read once every attempt made since `go` has ended: the server's work and the attempts cover the same runs.
    after = await serverStats(admin)
    wallSeconds = (performance.now() - opened) / 1000
  } catch (error) {
    for (const w of workers) w.kill()
    throw error
  }
  const attempts = reports.reduce((n, r) => n + r.attempts, 0)
  // The window is the longest worker's: from `go` to the end of its last attempt.
  const windowSeconds = Math.max(...reports.map((r) => r.elapsedMs)) / 1000
  const work = serverWork(before, after)
  return {
    policies,
    processes,
    concurrencyPerProcess: concurrency,
    providerMs,
    seconds: windowSeconds,
    attempts,
    attemptsPerSecond: attempts / windowSeconds,
    errors: reports.reduce((n, r) => n + r.errors, 0),
    firstError: reports.find((r) => r.firstError !== undefined)?.firstError,
    scriptsPerAttempt: attempts === 0 ? 0 : work.scripts / attempts,
    redisCpuShare: work.cpuSeconds / wallSeconds,
    redisCpuUsPerAttempt: attempts === 0 ? 0 : (work.cpuSeconds * 1e6) / attempts,
    redisScriptUsPerAttempt: attempts === 0 ? 0 : work.scriptUsec / attempts,
  }
}

/** `promise`, or a rejection with `message` after `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
