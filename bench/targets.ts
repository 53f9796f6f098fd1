import type { BenchRow } from './support/bench-row.ts'

/**
 * The speed and memory targets, as ratios to the floor (the minimal hand-written loop), with the
 * library at its defaults, rules and attempt logs on and a `validation_failed` listener attached.
 * Shared by the report (BENCHMARKS.md) and `npm run bench:check`.
 */
export const FLOOR = 'floor (hand-written loop)'
export const GATE_EVENTS = 'reliability-gate: gate + events'
export const AGENT = 'reliability-gate: Agent.runTyped + events'
/** The reference row: the floor plus the gate's contract (async provider, run id, clock reads, attempt log, result), written by hand (not a target). */
export const FLOOR_WITH_LOG = 'floor + attempt log (hand-written)'

/** One target: a contender's time or heap per call on a scenario, at most `max` times the floor's. */
export interface Target {
  readonly scenario: 'a' | 'c'
  readonly contender: string
  readonly what: 'time' | 'heap'
  readonly max: number
}

export const TARGETS: readonly Target[] = [
  { scenario: 'a', contender: GATE_EVENTS, what: 'time', max: 2 },
  { scenario: 'c', contender: GATE_EVENTS, what: 'time', max: 2 },
  { scenario: 'a', contender: GATE_EVENTS, what: 'heap', max: 3 },
  { scenario: 'a', contender: AGENT, what: 'time', max: 3 },
]

/** How far above a target a quick `npm run bench:check` measurement may land before it counts as missed. */
export const NOISE_MARGIN = 0.15

/** A short label: "gate + events (a) time ≤ 2.0x floor". */
export function targetLabel(t: Target): string {
  const who = t.contender === AGENT ? 'Agent.runTyped + events' : 'gate + events'
  return `${who} (${t.scenario}) ${t.what === 'time' ? 'time' : 'heap/call'} ≤ ${t.max.toFixed(1)}x floor`
}

/** The measured ratio of a target from a scenario's rows, or undefined when a side is missing. */
export function targetRatio(t: Target, rows: readonly BenchRow[]): number | undefined {
  const floor = rows.find((row) => row.contender === FLOOR)
  const row = rows.find((r) => r.contender === t.contender)
  if (t.what === 'time') {
    return floor?.time !== undefined && row?.time !== undefined ? row.time.medianNs / floor.time.medianNs : undefined
  }
  return floor?.heapBytesPerCall !== undefined && row?.heapBytesPerCall !== undefined ? row.heapBytesPerCall / floor.heapBytesPerCall : undefined
}
