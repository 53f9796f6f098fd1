import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { describeWith, redisServer } from '../support/requirements.ts'
import { runWorker } from './support/run-worker.ts'
import { useRedis } from './support/use-redis.ts'

const WORKER = fileURLToPath(new URL('./support/fleet-worker.ts', import.meta.url))
const WORKER_TIMEOUT_MS = 10_000

const redis = useRedis()

/** Runs one fleet process to completion and returns the JSON line it printed. */
function runFleetWorker(role: 'first' | 'second' | 'race', now: number): Promise<Record<string, unknown>> {
  return runWorker(WORKER, [String(redis.server.port), role, String(now)], WORKER_TIMEOUT_MS, `fleet worker "${role}"`)
}

describeWith(redisServer)('a fleet of processes on one Redis', () => {
  it('shares budget, breaker and rate-limit window from one process to the next', async () => {
    await redis.client.flushdb()
    const now = 1_800_000_000_000
    const first = await runFleetWorker('first', now)
    expect(first).toEqual({ budget: ['ok', 'ok'], breaker: ['http-5xx', 'http-5xx'], rateLimit: ['ok', 'ok'] })

    const second = await runFleetWorker('second', now)
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
    const [a, b] = await Promise.all([runFleetWorker('race', 0), runFleetWorker('race', 0)])
    expect(Number(a['allowed']) + Number(b['allowed'])).toBe(3)
  })
})
