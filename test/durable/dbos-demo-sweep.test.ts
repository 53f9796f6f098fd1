import { afterAll, beforeAll, expect, it } from 'vitest'
import { useRedis } from '../redis/support/use-redis.ts'
import { type PostgresServer, startPostgresServer } from '../sessions/support/postgres-server.ts'
import { describeWith, postgresServer, redisServer } from '../support/requirements.ts'
import { type CountingProvider, startCountingProvider } from './support/counting-provider.ts'
import type { DemoResult } from './support/demo-agent.ts'
import { ALL_HOLD, killPointOf, referenceRun, reportSweep, sweepFigures, traceOf, type Verdict, verdictOf } from './support/demo-sweep.ts'
import { startWorker, type Worker } from './support/worker-process.ts'

// The demo agent (tool turns with refunds, a schema retry with feedback, a Redis budget, a Redis
// session) as a DBOS workflow, SIGKILLed at one kill point of each seeded run: before, inside or after
// an attempt step, a tool step or a session step. A new process launches DBOS, which recovers the
// workflow. RG_DURABLE_SWEEP=<runs> sweeps more (the figure is 200); RG_DURABLE_SWEEP_RESULTS=<file.json> records the figures.
const RUNS = Number(process.env['RG_DURABLE_SWEEP'] ?? 9)
const SLOW = 3_600_000
const redis = useRedis(1)

describeWith(redisServer)('The demo agent on DBOS under SIGKILL', () => {
  describeWith(postgresServer)('at every step boundary and inside every step', () => {
    let server: PostgresServer | undefined
    let provider: CountingProvider | undefined
    const workers: Worker[] = []

    beforeAll(async () => {
      provider = await startCountingProvider()
      server = await startPostgresServer()
    }, SLOW)

    afterAll(async () => {
      for (const worker of workers) await worker.kill()
      await server?.stop()
      await provider?.close()
    }, SLOW)

    /** Runs the worker to its exit (a SIGKILL of its own, or the run's end). */
    const exited = async (mode: 'start' | 'resume', seed: number, killAt: number): Promise<Worker> => {
      const url = `${server?.url.replace(/\/postgres$/, '')}/rg_demo_sweep`
      const worker = startWorker('./dbos-demo-worker.ts', [url, mode, String(seed), String(killAt), String(redis.server.port), provider?.baseURL ?? ''])
      workers.push(worker)
      await new Promise<void>((resolve) =>
        worker.child.exitCode !== null || worker.child.signalCode !== null ? resolve() : worker.child.once('exit', () => resolve()),
      )
      return worker
    }

    it(
      `bills no finished attempt again, recomputes the same feedback, applies each refund once, charges the budget its own cost plus at most the call in flight and commits the exchange once (${RUNS} seeded runs)`,
      async () => {
        const verdicts: Verdict[] = []
        for (let seed = 1; seed <= RUNS; seed++) {
          const reference = await referenceRun(redis.client, provider as CountingProvider, seed)
          const killAt = killPointOf(seed, reference.steps)
          const killed = await exited('start', seed, killAt)
          expect({ seed, killAt, signal: killed.child.signalCode }).toEqual({ seed, killAt, signal: 'SIGKILL' })
          const resumed = await exited('resume', seed, -1)
          const line = resumed
            .output()
            .split('\n')
            .find((l) => l.startsWith('result '))
          if (line === undefined) throw new Error(`seed ${seed}: no result after the resume: ${resumed.output().slice(-3000)}`)
          const key = `sweep-${seed}`
          const trace = await traceOf(redis.client, provider as CountingProvider, key, JSON.parse(line.slice('result '.length)) as DemoResult)
          const verdict = verdictOf(reference, key, killAt, trace)
          expect({ seed, point: verdict.point, ...verdict.holds }).toEqual({ seed, point: verdict.point, ...ALL_HOLD })
          verdicts.push(verdict)
        }
        const figures = sweepFigures(verdicts)
        expect({ rebilledAttempts: figures.rebilledAttempts, duplicateEffects: figures.duplicateEffects }).toEqual({ rebilledAttempts: 0, duplicateEffects: 0 })
        reportSweep('DBOS', figures)
      },
      SLOW,
    )
  })
})
