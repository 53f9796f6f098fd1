import { type CallOutcome, type CallSummary, type DecisionStep, sameOutcome, sameStep } from './call-summary.ts'
import type { RecordedCall, UnreplayableCall } from './recorded-call.ts'
import type { NeedsModelAnswer } from './replay-provider.ts'

/** Where a replayed call first decided otherwise than the recording. */
export interface Divergence {
  /** The attempt of the first decision that differs (of the recording, else of the replay). */
  readonly attempt: number
  /** The recorded decision there (absent: the recording had decided everything by then). */
  readonly before: DecisionStep | undefined
  /** The replayed decision there (absent: the replay ended, or stopped for a model answer, before it). */
  readonly after: DecisionStep | undefined
}

/** One call, recorded and replayed. */
export interface ReplayedCall {
  readonly id: string
  readonly runId: string
  /**
   * `same`: every decision and the outcome (attempts, tokens, cost) as recorded; `changed`: some
   * decision or the outcome differs; `needs-model-answer`: the replay asked the model something the
   * trace never recorded, and stopped there.
   */
  readonly status: 'same' | 'changed' | 'needs-model-answer'
  readonly before: CallSummary
  readonly after: CallSummary
  /** The first decision that differs, when one does. */
  readonly divergence: Divergence | undefined
  readonly needsModelAnswer: NeedsModelAnswer | undefined
  /** Every replayed event equals the recorded one (times aside). */
  readonly eventsIdentical: boolean
  /** Replayed attempts sent another retry tail (feedback) than the one the recorded answer followed. */
  readonly requestChanged: readonly number[]
}

/** Totals over calls: successes and what each success cost. */
export interface ReplayTotals {
  readonly calls: number
  readonly succeeded: number
  readonly failed: number
  /** `succeeded / calls` (0 without calls). */
  readonly successRate: number
  readonly attempts: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly costUsd: number
  /** Per success; `null` without a success. */
  readonly attemptsPerSuccess: number | null
  readonly tokensPerSuccess: number | null
  readonly costPerSuccessUsd: number | null
}

/** What a replay found. */
export interface ReplayReport {
  readonly calls: readonly ReplayedCall[]
  /** Stretches of the trace that could not be replayed (a call cut short, an answer redacted), with why. */
  readonly unreplayable: readonly UnreplayableCall[]
  /** The recording, over every replayed call. */
  readonly before: ReplayTotals
  /** The replay, over the calls it decided (those that needed no model answer). */
  readonly after: ReplayTotals
  /** The recording, over the same calls as `after`: the like-for-like comparison. */
  readonly beforeDecided: ReplayTotals
  readonly changed: number
  readonly needsModelAnswer: number
  /** Calls whose replayed events all equal the recorded ones. */
  readonly eventsIdentical: number
}

/** The comparison of one call's recording and replay. */
export function compareCall(
  call: Pick<RecordedCall, 'id' | 'runId'>,
  before: CallSummary,
  after: CallSummary,
  replay: { readonly needsModelAnswer: NeedsModelAnswer | undefined; readonly eventsIdentical: boolean; readonly requestChanged: readonly number[] },
): ReplayedCall {
  let divergence: Divergence | undefined
  const length = Math.max(before.steps.length, after.steps.length)
  for (let i = 0; i < length; i++) {
    const b = before.steps[i]
    const a = after.steps[i]
    if (sameStep(b, a)) continue
    // A replay that stopped for a model answer has no steps past it: only a decision it made differs.
    if (a === undefined && replay.needsModelAnswer !== undefined) break
    divergence = { attempt: (b ?? a)?.attempt ?? 0, before: b, after: a }
    break
  }
  const status =
    replay.needsModelAnswer !== undefined ? 'needs-model-answer' : divergence === undefined && sameOutcome(before.outcome, after.outcome) ? 'same' : 'changed'
  return { id: call.id, runId: call.runId, status, before, after, divergence, ...replay }
}

/** The totals of some calls' outcomes. */
export function totals(outcomes: readonly (CallOutcome | undefined)[]): ReplayTotals {
  let succeeded = 0
  let attempts = 0
  let inputTokens = 0
  let outputTokens = 0
  let costUsd = 0
  for (const o of outcomes) {
    if (o === undefined) continue
    if (o.outcome === 'ok') succeeded++
    attempts += o.attempts
    inputTokens += o.inputTokens
    outputTokens += o.outputTokens
    costUsd += o.costUsd
  }
  const calls = outcomes.filter((o) => o !== undefined).length
  const per = (n: number) => (succeeded === 0 ? null : n / succeeded)
  return {
    calls,
    succeeded,
    failed: calls - succeeded,
    successRate: calls === 0 ? 0 : succeeded / calls,
    attempts,
    inputTokens,
    outputTokens,
    costUsd,
    attemptsPerSuccess: per(attempts),
    tokensPerSuccess: per(inputTokens + outputTokens),
    costPerSuccessUsd: per(costUsd),
  }
}

/** The report of compared calls. */
export function replayReport(calls: readonly ReplayedCall[], unreplayable: readonly UnreplayableCall[]): ReplayReport {
  const decided = calls.filter((c) => c.needsModelAnswer === undefined)
  return {
    calls,
    unreplayable,
    before: totals(calls.map((c) => c.before.outcome)),
    after: totals(decided.map((c) => c.after.outcome)),
    beforeDecided: totals(decided.map((c) => c.before.outcome)),
    changed: calls.filter((c) => c.status === 'changed').length,
    needsModelAnswer: calls.length - decided.length,
    eventsIdentical: calls.filter((c) => c.eventsIdentical).length,
  }
}
