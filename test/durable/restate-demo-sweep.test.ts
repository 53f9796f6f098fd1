import { afterAll, beforeAll, expect, it } from 'vitest'
import { freePort } from '../redis/support/redis-server.ts'
import { useRedis } from '../redis/support/use-redis.ts'
import { describeWith, redisServer, restateServer } from '../support/requirements.ts'
import { type CountingProvider, startCountingProvider } from './support/counting-provider.ts'
import type { DemoResult } from './support/demo-agent.ts'
import { ALL_HOLD, killPointOf, referenceRun, reportSweep, sweepFigures, traceOf, type Verdict, verdictOf } from './support/demo-sweep.ts'
import { registerWorker, type RestateServer, startRestateServer } from './support/restate-server.ts'
import { startWorker, type Worker } from './support/worker-process.ts'

// The demo agent (tool turns with refunds, a schema retry with feedback, a Redis budget, a Redis
// session) as a Restate workflow, SIGKILLed at one kill point of each seeded run: before, inside or
// after an attempt step, a tool step or the session commit. The endpoint restarts and Restate retries
// the invocation, replaying the journal. RG_DURABLE_SWEEP=<runs> sweeps more (the figure is 200);
// RG_DURABLE_SWEEP_RESULTS=<file.json> records the figures (bench/results/durable-sweep.json shows in BENCHMARKS.md).
const RUNS = Number(process.env['RG_DURABLE_SWEEP'] ?? 9)
const SLOW = 3_600_000
const redis = useRedis(1)

describeWith(redisServer)('The demo agent on Restate under SIGKILL', () => {
  describeWith(restateServer)('at every step boundary and inside every step', () => {
    let server: RestateServer | undefined
    let provider: CountingProvider | undefined
    let worker: Worker | undefined
    let port = 0

    const start = async (mode: 'kill' | 'resume'): Promise<Worker> => {
      await worker?.kill()
      worker = startWorker('./restate-demo-worker.ts', [String(port), mode, String(redis.server.port), provider?.baseURL ?? ''])
      await worker.said('ready')
      return worker
    }

    beforeAll(async () => {
      provider = await startCountingProvider()
      server = await startRestateServer()
      port = await freePort()
      await start('kill')
      await registerWorker(server, port)
    }, SLOW)

    afterAll(async () => {
      await worker?.kill()
      await server?.stop()
      await provider?.close()
    }, SLOW)

    it(
      `bills no finished attempt again, recomputes the same feedback, applies each refund once, charges the budget its own cost plus at most the call in flight and commits the exchange once (${RUNS} seeded runs)`,
      async () => {
        const verdicts: Verdict[] = []
        for (let seed = 1; seed <= RUNS; seed++) {
          const reference = await referenceRun(redis.client, provider as CountingProvider, seed)
          const killAt = killPointOf(seed, reference.steps)
          const killing = await start('kill')
          const exited = new Promise<void>((resolve) => killing.child.once('exit', () => resolve()))
          const key = `sweep-${seed}`
          const sent = await fetch(`${server?.ingress}/demoRun/${key}/run/send`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ seed, killAt }),
          })
          if (!sent.ok) throw new Error(`submitting ${key} failed: ${sent.status} ${await sent.text()}`)
          await exited
          expect({ seed, killAt, signal: killing.child.signalCode }).toEqual({ seed, killAt, signal: 'SIGKILL' })
          await start('resume')
          const answer = await fetch(`${server?.ingress}/restate/workflow/demoRun/${key}/attach`, { signal: AbortSignal.timeout(SLOW) })
          if (!answer.ok) throw new Error(`${key} failed: ${answer.status} ${await answer.text()}`)
          const trace = await traceOf(redis.client, provider as CountingProvider, key, (await answer.json()) as DemoResult)
          const verdict = verdictOf(reference, key, killAt, trace)
          expect({ seed, point: verdict.point, ...verdict.holds }).toEqual({ seed, point: verdict.point, ...ALL_HOLD })
          verdicts.push(verdict)
        }
        const figures = sweepFigures(verdicts)
        expect({ rebilledAttempts: figures.rebilledAttempts, duplicateEffects: figures.duplicateEffects }).toEqual({ rebilledAttempts: 0, duplicateEffects: 0 })
        reportSweep('Restate', figures)
      },
      SLOW,
    )
  })
})
