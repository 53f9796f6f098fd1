import { performance } from 'node:perf_hooks'
import type { Redis } from 'ioredis'
import type { CountingProvider } from '../../test/durable/support/counting-provider.ts'
import { referenceRun } from '../../test/durable/support/demo-sweep.ts'
import type { RestateServer } from '../../test/durable/support/restate-server.ts'
import { startWorker, type Worker } from '../../test/durable/support/worker-process.ts'
import { freePort } from '../../test/redis/support/redis-server.ts'
import { quartiles } from './bench-gate.ts'

/** How long a killed demo run takes to answer once its worker (and, for DBOS, the engine in it) starts again. */
export interface ResumeTime {
  /** The engine, and what restarted. */
  readonly engine: string
  readonly samples: number
  /** Milliseconds from starting the new worker process to the run's answer: median, p25, p75. */
  readonly fromRestart: { readonly median: number; readonly p25: number; readonly p75: number }
  /** Milliseconds from the worker being ready (Restate: its endpoint listening; DBOS: `DBOS.launch()` done) to the answer. */
  readonly fromReady: { readonly median: number; readonly p25: number; readonly p75: number }
  /** Milliseconds of one uninterrupted run of the same agent on the engine (median; DBOS: from `DBOS.launch()` done), for scale. */
  readonly uninterrupted: number
  /** Where each run was killed. */
  readonly killedAt: string
}

/** The demo seed the bench runs: three tool turns, the schema retry, the session commit. */
const SEED = 5

/** Where the bench kills its runs: a kill point of the demo agent's run and the step it is inside. */
export interface BenchKill {
  readonly killAt: number
  readonly step: string
}

/** The kill point inside the middle model attempt step of the seed (its answer received, not journaled), from one uninterrupted run. */
export async function benchKill(redis: Redis, provider: CountingProvider): Promise<BenchKill> {
  const { steps } = await referenceRun(redis, provider, SEED)
  const attempts = steps.flatMap((name, i) => (name.startsWith('attempt:') ? [i] : []))
  const step = attempts[Math.floor(attempts.length / 2)] as number
  return { killAt: 3 * step + 1, step: steps[step] as string }
}

const exit = (worker: Worker): Promise<void> =>
  new Promise((resolve) => (worker.child.exitCode !== null || worker.child.signalCode !== null ? resolve() : worker.child.once('exit', () => resolve())))

/**
 * Restate: the endpoint is SIGKILLed inside a step; a new endpoint process starts on the same port and Restate retries the
 * invocation. Every other sample the server is SIGKILLed and started again too, before the endpoint.
 */
export async function restateResume(
  server: RestateServer,
  kill: BenchKill,
  redisPort: number,
  provider: CountingProvider,
  samples: number,
): Promise<ResumeTime[]> {
  const { killAt, step } = kill
  const port = await freePort()
  const start = (mode: 'kill' | 'resume'): Worker => startWorker('./restate-demo-worker.ts', [String(port), mode, String(redisPort), provider.baseURL])
  let worker = start('resume')
  await worker.said('ready')
  const registered = await fetch(`${server.admin}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: `http://127.0.0.1:${port}` }),
  })
  if (!registered.ok) throw new Error(`registering the demo endpoint failed: ${registered.status} ${await registered.text()}`)
  const call = async (key: string, killAt: number, send: boolean): Promise<Response> =>
    fetch(`${server.ingress}/demoRun/${key}/run${send ? '/send' : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seed: SEED, killAt }),
      signal: AbortSignal.timeout(120_000),
    })
  const whole: number[] = []
  for (let i = 0; i < samples; i++) {
    const t = performance.now()
    const answer = await call(`restate-whole-${i}`, -1, false)
    if (!answer.ok) throw new Error(`an uninterrupted run failed: ${answer.status} ${await answer.text()}`)
    await answer.json()
    whole.push(performance.now() - t)
  }
  const restarts = { worker: { fromRestart: [] as number[], fromReady: [] as number[] }, engine: { fromRestart: [] as number[], fromReady: [] as number[] } }
  try {
    for (let i = 0; i < 2 * samples; i++) {
      // Interleaved: the worker alone restarts, then the server too (SIGKILLed and started again on its folder).
      const which = i % 2 === 0 ? 'worker' : 'engine'
      await worker.kill()
      worker = start('kill')
      await worker.said('ready')
      const killed = exit(worker)
      const sent = await call(`restate-resume-${i}`, killAt, true)
      if (!sent.ok) throw new Error(`submitting a run failed: ${sent.status} ${await sent.text()}`)
      await killed
      const restarted = performance.now()
      if (which === 'engine') await server.restart()
      worker = start('resume')
      await worker.said('ready')
      const ready = performance.now()
      const answer = await fetch(`${server.ingress}/restate/workflow/demoRun/restate-resume-${i}/attach`, { signal: AbortSignal.timeout(120_000) })
      if (!answer.ok) throw new Error(`a resumed run failed: ${answer.status} ${await answer.text()}`)
      await answer.json()
      const done = performance.now()
      restarts[which].fromRestart.push(done - restarted)
      restarts[which].fromReady.push(done - ready)
    }
  } finally {
    await worker.kill()
  }
  const row = (engine: string, times: { fromRestart: number[]; fromReady: number[] }): ResumeTime => ({
    engine,
    samples,
    fromRestart: quartiles(times.fromRestart),
    fromReady: quartiles(times.fromReady),
    uninterrupted: quartiles(whole).median,
    killedAt: `inside ${step}`,
  })
  return [row('Restate, worker restarted', restarts.worker), row('Restate, server and worker restarted', restarts.engine)]
}

/** DBOS: the worker is SIGKILLed inside a step; a new process launches DBOS, which recovers the workflow and runs it to the end. */
export async function dbosResume(
  systemDatabaseUrl: string,
  kill: BenchKill,
  redisPort: number,
  provider: CountingProvider,
  samples: number,
): Promise<ResumeTime> {
  const { killAt, step } = kill
  const run = async (mode: 'start' | 'resume', id: string, at: number) => {
    const started = performance.now()
    let launched = Number.NaN
    const worker = startWorker('./dbos-demo-worker.ts', [systemDatabaseUrl, mode, String(SEED), String(at), String(redisPort), provider.baseURL, id])
    void worker.said('launched', 120_000).then(
      () => (launched = performance.now()),
      () => {},
    )
    await exit(worker)
    const done = performance.now()
    return { worker, fromStart: done - started, fromLaunched: done - launched }
  }
  const whole: number[] = []
  const fromRestart: number[] = []
  const fromReady: number[] = []
  for (let i = 0; i < samples; i++) {
    const uninterrupted = await run('start', `dbos-whole-${i}`, -1)
    if (!uninterrupted.worker.output().includes('result ')) throw new Error(`an uninterrupted DBOS run failed: ${uninterrupted.worker.output().slice(-2000)}`)
    whole.push(uninterrupted.fromLaunched)
    const killed = await run('start', `dbos-resume-${i}`, killAt)
    if (killed.worker.child.signalCode !== 'SIGKILL') throw new Error(`a DBOS run was not killed: ${killed.worker.output().slice(-2000)}`)
    const resumed = await run('resume', `dbos-resume-${i}`, -1)
    if (!resumed.worker.output().includes('result ')) throw new Error(`a resumed DBOS run failed: ${resumed.worker.output().slice(-2000)}`)
    fromRestart.push(resumed.fromStart)
    fromReady.push(resumed.fromLaunched)
  }
  return {
    engine: 'DBOS, worker restarted (DBOS runs in it)',
    samples,
    fromRestart: quartiles(fromRestart),
    fromReady: quartiles(fromReady),
    uninterrupted: quartiles(whole).median,
    killedAt: `inside ${step}`,
  }
}
