import type { TimeStats } from './measure.ts'

/** One cell of the results table: a contender on a scenario. */
export interface BenchRow {
  readonly contender: string
  readonly status: 'ok' | 'unsupported' | 'error'
  readonly note?: string
  readonly reason?: string
  readonly time?: TimeStats
  readonly heapBytesPerCall?: number
}
