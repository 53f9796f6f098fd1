import type { BenchRow } from './support/bench-row.ts'

/**
 * The speed and memory targets, as ratios to the floor (the minimal hand-written loop) measured in
 * the same run. "plain" rows run the library at its defaults (rules and attempt logs on) with a
 * `validation_failed` listener; "production config" rows add what a service runs (transient retry,
 * failover, pricing, a timeout, a circuit breaker and a shared budget, OpenTelemetry instrumentation).
 * Shared by the report (BENCHMARKS.md) and `npm run bench:check`.
 */
export const FLOOR = 'floor (hand-written loop)'
/** The reference row: the floor plus the gate's contract (async provider, run id, clock reads, attempt log, result), written by hand (not a target). */
export const FLOOR_WITH_LOG = 'floor + attempt log (hand-written)'
export const GATE_NO_LISTENER = 'reliability-gate: gate, plain, no listener'
export const GATE_PLAIN = 'reliability-gate: gate, plain'
export const AGENT_PLAIN = 'reliability-gate: Agent.runTyped, plain'
export const GATE_PRODUCTION = 'reliability-gate: gate, production config'
export const AGENT_PRODUCTION = 'reliability-gate: Agent.runTyped, production config'
/** The production config's anchor: cockatiel's production composition around the floor's attempt (not a target). */
export const COCKATIEL_PRODUCTION = 'cockatiel: wrap(retry, circuitBreaker, timeout(30 s)) + hand-written call'

/** One target: a contender's time or heap per call on a scenario, at most `max` times the floor's (or `over`'s, another row of the same run). */
export interface Target {
  readonly scenario: 'a' | 'c'
  readonly contender: string
  readonly what: 'time' | 'heap'
  readonly max: number
  /** The row the ratio is taken over. @default FLOOR */
  readonly over?: string
}

// The core issue's targets: production (a) <= 8x, (c) <= 3x, heap <= 5x; plain (a) <= 2.5x, (c) <= 1.6x,
// heap <= 2.5x; Agent.runTyped plain <= 3.0x; the gate's own overhead over the contract written by hand <= 1.3x.
export const TARGETS: readonly Target[] = [
  { scenario: 'a', contender: GATE_PRODUCTION, what: 'time', max: 8 },
  { scenario: 'c', contender: GATE_PRODUCTION, what: 'time', max: 3 },
  { scenario: 'a', contender: GATE_PRODUCTION, what: 'heap', max: 5 },
  { scenario: 'a', contender: GATE_PLAIN, what: 'time', max: 2.5 },
  { scenario: 'c', contender: GATE_PLAIN, what: 'time', max: 1.6 },
  { scenario: 'a', contender: GATE_PLAIN, what: 'heap', max: 2.5 },
  { scenario: 'a', contender: AGENT_PLAIN, what: 'time', max: 3 },
  { scenario: 'a', contender: GATE_PLAIN, what: 'time', max: 1.3, over: FLOOR_WITH_LOG },
]

/** Ratios shown beside the targets to read them against, never judged: the production config's anchor. */
export const ANCHORS: readonly Omit<Target, 'max'>[] = [
  { scenario: 'a', contender: COCKATIEL_PRODUCTION, what: 'time' },
  { scenario: 'c', contender: COCKATIEL_PRODUCTION, what: 'time' },
  { scenario: 'a', contender: COCKATIEL_PRODUCTION, what: 'heap' },
]

/** How far above a target a quick `npm run bench:check` measurement may land before it counts as missed. */
export const NOISE_MARGIN = 0.15

const SHORT_NAMES: Readonly<Record<string, string>> = {
  [GATE_PLAIN]: 'gate, plain',
  [AGENT_PLAIN]: 'Agent.runTyped, plain',
  [GATE_PRODUCTION]: 'gate, production config',
  [AGENT_PRODUCTION]: 'Agent.runTyped, production config',
  [COCKATIEL_PRODUCTION]: 'cockatiel production composition',
  [FLOOR_WITH_LOG]: 'floor + attempt log',
}

/** A short label: "gate, plain (a) time ≤ 2.0x floor", or without the bound for an anchor. */
export function targetLabel(t: Omit<Target, 'max'> & { readonly max?: number }): string {
  const who = SHORT_NAMES[t.contender] ?? t.contender
  const what = `${who} (${t.scenario}) ${t.what === 'time' ? 'time' : 'heap/call'}`
  const base = t.over === undefined ? 'floor' : (SHORT_NAMES[t.over] ?? t.over)
  return t.max === undefined ? `${what}, x ${base}` : `${what} ≤ ${t.max.toFixed(1)}x ${base}`
}

/** The measured ratio of a target (or an anchor) from a scenario's rows, or undefined when a side is missing. */
export function targetRatio(t: Omit<Target, 'max'>, rows: readonly BenchRow[]): number | undefined {
  const floor = rows.find((row) => row.contender === (t.over ?? FLOOR))
  const row = rows.find((r) => r.contender === t.contender)
  if (t.what === 'time') {
    return floor?.time !== undefined && row?.time !== undefined ? row.time.medianNs / floor.time.medianNs : undefined
  }
  return floor?.heapBytesPerCall !== undefined && row?.heapBytesPerCall !== undefined ? row.heapBytesPerCall / floor.heapBytesPerCall : undefined
}
