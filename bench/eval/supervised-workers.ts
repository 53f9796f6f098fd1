import { Worker } from 'node:worker_threads'

/** A step of one item that killed its worker twice, the second time in a fresh worker that started with it. */
export interface StepFailure {
  readonly index: number
  readonly step: number
  /** `out of memory (heap N MB)`, `over N s`, or the worker's error. */
  readonly why: string
}

/** What a supervised worker is given (its script reads it from `workerData`). */
export interface SupervisedInput<D> {
  readonly data: D
  /** The items to work through, in order. */
  readonly indices: readonly number[]
  /** Steps of items that killed a worker: the script counts them as failed instead of running them. */
  readonly failed: readonly StepFailure[]
  /** `[item index, step]` the script is at, written with `Atomics.store` before each step (see {@link markStep}). */
  readonly progress: SharedArrayBuffer
}

export interface SupervisedLimits {
  /** The old-generation heap of each worker. */
  readonly heapMb: number
  /** Time one step of one item may take before its worker is stopped. */
  readonly stepSeconds: number
  /** Items per worker (a fresh heap per chunk). */
  readonly chunk: number
}

/** Called by the worker script before each step: survives the worker's death (shared memory). */
export function markStep(progress: SharedArrayBuffer, index: number, step: number): void {
  const at = new Int32Array(progress)
  Atomics.store(at, 0, index)
  Atomics.store(at, 1, step)
}

/**
 * Runs `script` over `indices` in chunks, each in a worker thread with a bounded heap, and collects the
 * one message it posts per item (`{ index, result }`). A worker that dies (out of heap, an error) or
 * stays on one step longer than `stepSeconds` is stopped; the items it had not reported run again in a
 * fresh worker that starts at the step it died on. If that worker dies on the same item and step
 * again, the step is isolated: it becomes a {@link StepFailure} the next workers are told to count
 * instead of running, and the work goes on. Nothing is dropped silently: every index ends with a
 * result or with its failures.
 */
export async function superviseWorkers<D, R>(
  script: URL,
  data: D,
  indices: readonly number[],
  limits: SupervisedLimits,
): Promise<{ readonly results: Map<number, R>; readonly failures: readonly StepFailure[] }> {
  const results = new Map<number, R>()
  const failures: StepFailure[] = []
  for (let at = 0; at < indices.length; at += limits.chunk) {
    const chunk = indices.slice(at, at + limits.chunk)
    let suspect: { index: number; step: number; deaths: number } | undefined
    for (;;) {
      const pending = chunk.filter((index) => !results.has(index))
      if (pending.length === 0) break
      const ended = await runOnce<D, R>(script, { data, indices: pending, failed: failures, progress: new SharedArrayBuffer(8) }, limits, results)
      if (ended === undefined) break
      console.error(`  a worker stopped at item ${ended.index}, step ${ended.step}: ${ended.why}`)
      // The first item of this worker died on the same step twice: isolated.
      // (The next worker starts at the first item not reported: the one that died, unless a report was lost.)
      const first = pending[0] === ended.index
      if (first && suspect !== undefined && suspect.index === ended.index && (suspect.step === ended.step || suspect.deaths >= 2)) {
        failures.push(ended)
        suspect = undefined
      } else suspect = { index: ended.index, step: ended.step, deaths: first && suspect?.index === ended.index ? suspect.deaths + 1 : 1 }
    }
  }
  return { results, failures }
}

/** One worker over `input.indices`; `undefined` when it finished, else where and why it died. */
function runOnce<D, R>(script: URL, input: SupervisedInput<D>, limits: SupervisedLimits, results: Map<number, R>): Promise<StepFailure | undefined> {
  return new Promise((resolve) => {
    const at = new Int32Array(input.progress)
    Atomics.store(at, 0, input.indices[0] ?? -1)
    const worker = new Worker(script, { workerData: input, resourceLimits: { maxOldGenerationSizeMb: limits.heapMb } })
    let why: string | undefined
    let last = `${Atomics.load(at, 0)}/${Atomics.load(at, 1)}`
    let since = Date.now()
    const watch = setInterval(() => {
      const now = `${Atomics.load(at, 0)}/${Atomics.load(at, 1)}`
      if (now !== last) {
        last = now
        since = Date.now()
      } else if (why === undefined && Date.now() - since > limits.stepSeconds * 1000) {
        // Once: each terminate() call adds an exit listener to the worker.
        why = `over ${limits.stepSeconds} s`
        void worker.terminate()
      }
    }, 250)
    worker.on('message', (message: { index: number; result: R }) => results.set(message.index, message.result))
    worker.once('error', (error: Error & { code?: string }) => {
      why ??= error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `out of memory (heap ${limits.heapMb} MB)` : `${error.name}: ${error.message}`.slice(0, 160)
    })
    worker.once('exit', (code) => {
      clearInterval(watch)
      const index = Atomics.load(at, 0)
      const finished = code === 0 && why === undefined && input.indices.every((i) => results.has(i))
      resolve(finished ? undefined : { index, step: Atomics.load(at, 1), why: why ?? `the worker exited with code ${code}` })
    })
  })
}
