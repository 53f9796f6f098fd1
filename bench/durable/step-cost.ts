import { performance } from 'node:perf_hooks'
import { DBOS } from '@dbos-inc/dbos-sdk'
import { dbosPort } from '../../src/dbos.ts'
import { memoryDurablePort } from '../../src/durable.ts'
import { startWorker } from '../../test/durable/support/worker-process.ts'
import type { RestateServer } from '../../test/durable/support/restate-server.ts'
import { freePort } from '../../test/redis/support/redis-server.ts'
import { ATTEMPTS_PER_RUN, benchRun, prefixedPort, quartiles } from './bench-gate.ts'

/** The cost of the step around each attempt where the gate runs: the same gate run with and without the port, per attempt. */
export interface StepCost {
  readonly where: string
  /** Microseconds per gate run (two attempts): median of the samples, without and with the durable port. */
  readonly plainUs: number
  readonly durableUs: number
  /** `durableUs / plainUs`, measured in one run, interleaved. */
  readonly ratio: number
  /** `(durableUs - plainUs) / attempts per run`: what one journaled step adds to an attempt. */
  readonly perAttemptUs: number
  readonly samples: number
  readonly runsPerSample: number
}

/** Interleaves `samples` timed batches of `plain` and `durable` (each returning its milliseconds for `runs` runs) and compares their medians. */
async function compare(
  where: string,
  samples: number,
  runs: number,
  plain: (sample: number) => Promise<number>,
  durable: (sample: number) => Promise<number>,
): Promise<StepCost> {
  await plain(-1)
  await durable(-2)
  const plainMs: number[] = []
  const durableMs: number[] = []
  for (let s = 0; s < samples; s++) {
    plainMs.push(await plain(s))
    durableMs.push(await durable(s))
  }
  const plainUs = (quartiles(plainMs).median * 1000) / runs
  const durableUs = (quartiles(durableMs).median * 1000) / runs
  return { where, plainUs, durableUs, ratio: durableUs / plainUs, perAttemptUs: (durableUs - plainUs) / ATTEMPTS_PER_RUN, samples, runsPerSample: runs }
}

/** In this process: the gate plain, and on `memoryDurablePort` (a fresh port per run, so every step runs and is journaled). */
export function memoryStepCost(samples: number, runs: number): Promise<StepCost> {
  const batch = async (durable: boolean, sample: number): Promise<number> => {
    const start = performance.now()
    for (let i = 0; i < runs; i++) await benchRun(durable ? memoryDurablePort({ runId: `m${sample}:${i}` }) : undefined)
    return performance.now() - start
  }
  return compare(
    'in process, memoryDurablePort',
    samples,
    runs,
    (s) => batch(false, s),
    (s) => batch(true, s),
  )
}

/** In a Restate workflow (its own endpoint process, `server` journaling): the gate plain, and on `restatePort(ctx)`. */
export async function restateStepCost(server: RestateServer, samples: number, runs: number): Promise<StepCost> {
  const port = await freePort()
  const worker = startWorker('../../../bench/durable/restate-bench-worker.ts', [String(port)])
  try {
    await worker.said('ready')
    const registered = await fetch(`${server.admin}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri: `http://127.0.0.1:${port}` }),
    })
    if (!registered.ok) throw new Error(`registering the bench endpoint failed: ${registered.status} ${await registered.text()}`)
    const batch = async (durable: boolean, sample: number): Promise<number> => {
      const answer = await fetch(`${server.ingress}/gateBench/bench-${durable ? 'd' : 'p'}-${sample + 2}/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ durable, runs }),
        signal: AbortSignal.timeout(120_000),
      })
      if (!answer.ok) throw new Error(`a Restate bench run failed: ${answer.status} ${await answer.text()}`)
      return (await answer.json()) as number
    }
    return await compare(
      'Restate workflow, restatePort(ctx)',
      samples,
      runs,
      (s) => batch(false, s),
      (s) => batch(true, s),
    )
  } finally {
    await worker.kill()
  }
}

/** In a DBOS workflow (DBOS launched in this process on `systemDatabaseUrl`): the gate plain, and on `dbosPort()`. */
export async function dbosStepCost(systemDatabaseUrl: string, samples: number, runs: number): Promise<StepCost> {
  DBOS.setConfig({ name: 'rg-durable-bench', systemDatabaseUrl, logLevel: 'error' })
  const gateBench = DBOS.registerWorkflow(
    async (durable: boolean, count: number): Promise<number> => {
      const port = dbosPort()
      const start = performance.now()
      for (let i = 0; i < count; i++) await benchRun(durable ? prefixedPort(port, String(i)) : undefined)
      return performance.now() - start
    },
    { name: 'gateBench' },
  )
  await DBOS.launch()
  try {
    const batch = async (durable: boolean, sample: number): Promise<number> => {
      const handle = await DBOS.startWorkflow(gateBench, { workflowID: `bench-${durable ? 'd' : 'p'}-${sample + 2}` })(durable, runs)
      return handle.getResult()
    }
    return await compare(
      'DBOS workflow, dbosPort()',
      samples,
      runs,
      (s) => batch(false, s),
      (s) => batch(true, s),
    )
  } finally {
    await DBOS.shutdown()
  }
}
