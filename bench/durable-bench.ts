/**
 * `node bench/durable-bench.ts` (`--quick` for short runs): what a durable run costs (issue 31, item 5).
 * Starts its own `redis-server`, `restate-server` and PostgreSQL on loopback and stops them after;
 * writes bench/results/durable.json and regenerates BENCHMARKS.md, which shows it.
 *
 * - the cost of the step around each attempt: the same gate run (two attempts: a schema retry with
 *   feedback) with and without the durable port, in this process on `memoryDurablePort`, in a Restate
 *   workflow on `restatePort(ctx)` and in a DBOS workflow on `dbosPort()`, interleaved in one run;
 * - the time to resume: the demo agent of the fault sweep (test/durable), SIGKILLed inside a model
 *   attempt step, until it answers once its worker (and DBOS, which runs in it) starts again.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { Redis } from 'ioredis'
import { startCountingProvider } from '../test/durable/support/counting-provider.ts'
import { startRestateServer } from '../test/durable/support/restate-server.ts'
import { startRedisServer } from '../test/redis/support/redis-server.ts'
import { startPostgresServer } from '../test/sessions/support/postgres-server.ts'
import { benchKill, dbosResume, restateResume } from './durable/resume-time.ts'
import { dbosStepCost, memoryStepCost, restateStepCost } from './durable/step-cost.ts'
import { writeReport } from './report.ts'
import type { DurableBenchResults } from './report/durable-section.ts'
import { machine } from './support/machine.ts'

/** Where the durable bench writes its figures. */
export const DURABLE_RESULTS = path.resolve(import.meta.dirname, 'results/durable.json')

const quick = process.argv.includes('--quick')
const SIZES = quick ? { samples: 5, memoryRuns: 200, engineRuns: 10, resumes: 3 } : { samples: 15, memoryRuns: 2_000, engineRuns: 50, resumes: 15 }

const startMachine = machine()
const redisServer = await startRedisServer()
const redis = new Redis({ host: redisServer.host, port: redisServer.port, maxRetriesPerRequest: 1 })
const provider = await startCountingProvider()
const restate = await startRestateServer()
const postgres = await startPostgresServer()
const database = (name: string): string => `${postgres.url.replace(/\/postgres$/, '')}/${name}`
try {
  const stepCost = [
    await memoryStepCost(SIZES.samples, SIZES.memoryRuns),
    await restateStepCost(restate, SIZES.samples, SIZES.engineRuns),
    await dbosStepCost(database('rg_durable_bench_steps'), SIZES.samples, SIZES.engineRuns),
  ]
  const kill = await benchKill(redis, provider)
  const resume = [
    ...(await restateResume(restate, kill, redisServer.port, provider, SIZES.resumes)),
    await dbosResume(database('rg_durable_bench_resume'), kill, redisServer.port, provider, SIZES.resumes),
  ]
  const results: DurableBenchResults = { machine: startMachine, quick, stepCost, resume }
  writeFileSync(DURABLE_RESULTS, `${JSON.stringify(results, null, 2)}\n`)
  writeReport()
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
} finally {
  redis.disconnect()
  await provider.close()
  await restate.stop()
  await postgres.stop()
  await redisServer.stop()
}
