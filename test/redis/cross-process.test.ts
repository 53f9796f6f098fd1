import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { describeWith, redisServer } from '../support/requirements.ts'
import { useRedis } from './support/use-redis.ts'

const WORKER = fileURLToPath(new URL('./support/fleet-worker.ts', import.meta.url))
const WORKER_TIMEOUT_MS = 10_000
// Node 24 strips types by default; Node 22 needs the flag to run the worker's TypeScript.
const NODE_FLAGS = process.features.typescript === false ? ['--experimental-strip-types'] : []

const redis = useRedis()

/** Runs one fleet process to completion and returns the JSON line it printed. */
function runWorker(role: 'first' | 'second' | 'race', now: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, WORKER, String(redis.server.port), role, String(now)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: WORKER_TIMEOUT_MS,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('error', reject)
    child.once('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`fleet worker "${role}" exited with ${code ?? signal}: ${stderr}`))
      try {
        resolve(JSON.parse(stdout) as Record<string, unknown>)
      } catch {
        reject(new Error(`fleet worker "${role}" printed no JSON: ${stdout}${stderr}`))
      }
    })
  })
}

describeWith(redisServer)('a fleet of processes on one Redis', () => {
  it('shares budget, breaker and rate-limit window from one process to the next', async () => {
    await redis.client.flushdb()
    const now = 1_800_000_000_000
    const first = await runWorker('first', now)
    expect(first).toEqual({ budget: ['ok', 'ok'], breaker: ['http-5xx', 'http-5xx'], rateLimit: ['ok', 'ok'] })

    const second = await runWorker('second', now)
    expect(second).toEqual({
      // The budget the first process spent stops this one before its provider is called.
      budget: 'budget-exceeded',
      budgetCalls: 0,
      // The breaker the first process opened is open here.
      breaker: 'circuit-open',
      breakerCalls: 0,
      // One slot was left in the window: it is used, then the full window fails over to the backup.
      rateLimit: ['ok', 'ok'],
      apiCalls: 1,
      backupCalls: 1,
    })
  })

  it('admits exactly the limit when two processes race for one window', async () => {
    await redis.client.flushdb()
    const [a, b] = await Promise.all([runWorker('race', 0), runWorker('race', 0)])
    expect(Number(a['allowed']) + Number(b['allowed'])).toBe(3)
  })
})
