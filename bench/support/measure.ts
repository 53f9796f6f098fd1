import { getHeapStatistics } from 'node:v8'
import { measure } from 'mitata'

/** Time per call, in nanoseconds. */
export interface TimeStats {
  readonly medianNs: number
  readonly p25Ns: number
  readonly p75Ns: number
  readonly p99Ns: number
  readonly minNs: number
  readonly samples: number
}

/**
 * Times an async call with mitata (warm-up, batching of fast calls, many samples). mitata reports
 * each sample as the mean of its batch, so the median is of batch means.
 */
export async function timeCall(call: () => Promise<unknown>, minCpuTimeMs = 400): Promise<TimeStats> {
  const stats = await measure(call, { min_cpu_time: minCpuTimeMs * 1e6 })
  return { medianNs: stats.p50, p25Ns: stats.p25, p75Ns: stats.p75, p99Ns: stats.p99, minNs: stats.min, samples: stats.samples.length }
}

const gc = (globalThis as { gc?: () => void }).gc

/** True when the process runs with `--expose-gc` (needed for {@link heapPerCall}). */
export const canMeasureHeap = typeof gc === 'function'

/**
 * Bytes allocated on the V8 heap per call: the growth of `used_heap_size` over a batch of calls that
 * no garbage collection interrupted, divided by the batch size. A collection in the middle of a batch
 * makes the growth negative or short, so each batch starts from a forced full GC and the median of
 * many batches is kept; run with a large young generation (`--max-semi-space-size`) so that most
 * batches see no scavenge at all.
 */
export async function heapPerCall(call: () => Promise<unknown>, batch = 200, batches = 25): Promise<number | undefined> {
  if (gc === undefined) return undefined
  for (let i = 0; i < batch; i++) await call() // warm: compile, caches, lazy fields
  const perCall: number[] = []
  for (let b = 0; b < batches; b++) {
    gc()
    const before = getHeapStatistics().used_heap_size
    for (let i = 0; i < batch; i++) await call()
    const grown = getHeapStatistics().used_heap_size - before
    if (grown > 0) perCall.push(grown / batch)
  }
  return median(perCall)
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}
