import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { describeWith, redisServer } from '../support/requirements.ts'
import { runWorker } from './support/run-worker.ts'
import { useRedis } from './support/use-redis.ts'

const WORKER = fileURLToPath(new URL('./support/budget-worker.ts', import.meta.url))
const WORKER_TIMEOUT_MS = 60_000
const PROCESSES = 4
const SPENDERS = 100
const BUDGET_USD = 1

const redis = useRedis()

interface WorkerReport {
  readonly calls: number
  readonly billedUsd: number
  readonly refusals: Record<string, number>
}

function runBudgetWorker(seed: number): Promise<WorkerReport> {
  return runWorker<WorkerReport>(WORKER, [String(redis.server.port), String(SPENDERS), String(seed)], WORKER_TIMEOUT_MS, 'budget worker')
}

describeWith(redisServer)('a shared budget raced by a fleet of processes on one Redis', () => {
  it(`charges at most the budget and uses at least 90% of it: ${PROCESSES} processes x ${SPENDERS} spenders, 3 runs`, {
    timeout: 4 * WORKER_TIMEOUT_MS,
  }, async () => {
    for (let run = 1; run <= 3; run++) {
      await redis.client.flushdb()
      const reports = await Promise.all(Array.from({ length: PROCESSES }, (_, p) => runBudgetWorker(run * 100 + p + 1)))
      const charged = Number(await redis.client.get('fleet-budget:budget'))
      const billed = reports.reduce((n, r) => n + r.billedUsd, 0)
      const calls = reports.reduce((n, r) => n + r.calls, 0)
      const refusals = reports.map((r) => r.refusals)
      console.log(
        `[shared budget] run ${run}: ${PROCESSES} processes x ${SPENDERS} spenders on $${BUDGET_USD.toFixed(2)}: charged $${charged.toFixed(6)}, ` +
          `billed by the provider $${billed.toFixed(6)}, ${calls} calls, ${((charged / BUDGET_USD) * 100).toFixed(2)}% of the budget used`,
      )
      // Every spender stopped on the budget, not on anything else.
      expect(refusals).toEqual(Array.from({ length: PROCESSES }, () => ({ 'budget-exceeded': SPENDERS })))
      // What the budget counted is what the provider billed: nothing spent escaped it.
      expect(charged).toBeCloseTo(billed, 9)
      expect(charged).toBeLessThanOrEqual(BUDGET_USD)
      expect(charged).toBeGreaterThanOrEqual(0.9 * BUDGET_USD)
      // Nothing is left reserved once every spender is done.
      expect(await redis.client.hlen('{fleet-budget:budget}:holds')).toBe(0)
    }
  })
})
