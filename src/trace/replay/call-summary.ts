import { isRecord } from '../../model/is-record.ts'
import type { TraceRecord } from '../trace-record.ts'

/** What a decision did, in the report's words: `retry-other` is a fail-over. */
export type ReplayAction = 'accept' | 'retry' | 'fail-over' | 'fallback' | 'fail-fast'

/** One decision of a call: which attempt it followed, what the attempt was, and what was done. */
export interface DecisionStep {
  readonly attempt: number
  readonly phase: 'pre-check' | 'post-decide'
  /** The provider of the attempt decided on (absent for a PreCheck decision). */
  readonly provider: string | undefined
  /** The attempt's error kind (`ok` for an accepted answer; absent for a PreCheck decision). */
  readonly errorKind: string | undefined
  readonly action: ReplayAction
  /** The deciding rule's kind, or the default's. */
  readonly kind: string
}

/** How a call ended and what it spent. */
export interface CallOutcome {
  readonly outcome: 'ok' | 'fail-fast'
  /** `ok`, or the fail-fast kind. */
  readonly kind: string
  readonly attempts: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly costUsd: number
  readonly fromFallback: boolean
}

/** A call's decisions in order, and its outcome (absent when the call did not end: a replay that needs a model answer). */
export interface CallSummary {
  readonly steps: readonly DecisionStep[]
  readonly outcome: CallOutcome | undefined
}

const ACTIONS: Readonly<Record<string, ReplayAction>> = {
  ok: 'accept',
  retry: 'retry',
  'retry-other': 'fail-over',
  fallback: 'fallback',
  'fail-fast': 'fail-fast',
}

/** The decisions and outcome a call's records tell (recorded or replayed alike, so the two compare). */
export function callSummary(records: readonly TraceRecord[]): CallSummary {
  const steps: DecisionStep[] = []
  const providers = new Map<number, string>()
  const kinds = new Map<number, string>()
  let outcome: CallOutcome | undefined
  for (const r of records) {
    if (r.type === 'attempt_start' && typeof r.attempt === 'number' && typeof r.provider === 'string') providers.set(r.attempt, r.provider)
    else if (r.type === 'attempt_end' && typeof r.attempt === 'number' && typeof r.errorKind === 'string') kinds.set(r.attempt, r.errorKind)
    else if (r.type === 'decision') {
      const attempt = typeof r.attempt === 'number' ? r.attempt : 0
      const phase = r.phase === 'pre-check' ? 'pre-check' : 'post-decide'
      steps.push({
        attempt,
        phase,
        provider: phase === 'pre-check' ? undefined : providers.get(attempt),
        errorKind: phase === 'pre-check' ? undefined : kinds.get(attempt),
        // An own row only: a decision a file calls `constructor` is no action of Object's.
        action: Object.hasOwn(ACTIONS, String(r.decision)) ? (ACTIONS[String(r.decision)] as ReplayAction) : 'fail-fast',
        kind: typeof r.kind === 'string' ? r.kind : '?',
      })
    } else if (r.type === 'fail_fast') {
      // A cap or a PreCheck can end a run a rule meant to retry: the ending is a decision of its own.
      const attempt = typeof r.attempt === 'number' ? r.attempt : 0
      const last = steps.at(-1)
      if (last === undefined || last.action !== 'fail-fast' || last.attempt !== attempt) {
        const phase = r.phase === 'pre-check' ? 'pre-check' : 'post-decide'
        steps.push({ attempt, phase, provider: undefined, errorKind: undefined, action: 'fail-fast', kind: typeof r.kind === 'string' ? r.kind : '?' })
      }
    } else if (r.type === 'run_end') outcome = outcomeOf(r)
  }
  return { steps, outcome }
}

function outcomeOf(r: TraceRecord): CallOutcome {
  const usage = isRecord(r.usage) ? r.usage : {}
  return {
    outcome: r.outcome === 'ok' ? 'ok' : 'fail-fast',
    kind: typeof r.kind === 'string' ? r.kind : '?',
    attempts: count(r.attempts),
    inputTokens: count(usage.inputTokens),
    outputTokens: count(usage.outputTokens),
    costUsd: count(r.costUsd),
    fromFallback: r.fromFallback === true,
  }
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0)

/** Two steps are the same decision: same attempt, phase, provider, error kind, action and rule kind. */
export function sameStep(a: DecisionStep | undefined, b: DecisionStep | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return (
    a.attempt === b.attempt && a.phase === b.phase && a.provider === b.provider && a.errorKind === b.errorKind && a.action === b.action && a.kind === b.kind
  )
}

/** Two outcomes are the same: same ending, kind, attempts, tokens, cost (to the nano-dollar) and fallback. */
export function sameOutcome(a: CallOutcome | undefined, b: CallOutcome | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return (
    a.outcome === b.outcome &&
    a.kind === b.kind &&
    a.attempts === b.attempts &&
    a.inputTokens === b.inputTokens &&
    a.outputTokens === b.outputTokens &&
    Math.abs(a.costUsd - b.costUsd) < 1e-9 &&
    a.fromFallback === b.fromFallback
  )
}

/** Keys that differ between two runs of the same decisions (time, and what the recorded request's messages were). */
const VOLATILE = new Set(['ts', 'latencyMs', 'durationMs'])

/** An event as compared between a recording and its replay: without its times. */
export function eventSignature(record: TraceRecord): string {
  return JSON.stringify(record, (key, value: unknown) => (VOLATILE.has(key) ? undefined : value))
}
