import type { Machine } from '../support/machine.ts'
import { machineLines } from './bench-sections.ts'
import { ratio, table } from './format.ts'

/** One arrangement's effect on one contender: ns per run after a full collection, with it kept and with it dropped. */
export interface ArrangementRow {
  readonly arrangement: string
  readonly contender: string
  readonly keptNs: number
  readonly droppedNs: number
}

/** What `node --expose-gc bench/arrangements.ts` writes to bench/results/arrangements.json. */
export interface ArrangementResults {
  readonly machine: Machine
  readonly batches: number
  readonly runsPerBatch: number
  readonly rows: readonly ArrangementRow[]
}

/** The BENCHMARKS.md section of `bench/arrangements.ts`. */
export function arrangementsSection(r: ArrangementResults): string[] {
  return [
    '## `node --expose-gc bench/arrangements.ts`: what the V8 arrangements buy',
    '',
    ...machineLines(r.machine, ['--expose-gc']),
    'The one arrangement the core keeps for speed alone: hidden-class witnesses (`keepShape`, in `run-gate.ts`, `gate-attempt.ts`,',
    '`retry-state.ts` and the agent run). Between two runs none of a run’s objects is alive; a full collection then drops their',
    'hidden classes and deoptimises the code that embedded them. Each row times the same contender (scenario (a), settled',
    `code) in ${r.batches} batches of ${r.runsPerBatch.toLocaleString('en-US')} runs, each batch right after a forced full collection, with the witnesses kept,`,
    'then dropped (medians of the batches). Without them, every full collection of a long-lived process costs the next',
    'thousands of runs this slowdown.',
    '',
    ...table(
      ['arrangement', 'contender', 'kept ns/run', 'dropped ns/run', 'slower without'],
      r.rows.map((row) => [row.arrangement, row.contender, row.keptNs.toFixed(0), row.droppedNs.toFixed(0), ratio(row.droppedNs / row.keptNs)]),
    ),
    '',
  ]
}
