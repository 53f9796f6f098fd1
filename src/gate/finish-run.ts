import type { ModelResponse } from '../model/response.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { AttemptRecord } from './attempt-record.ts'
import type { GateResult } from './gate-result.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import type { RunStop } from './fail-fast.ts'
import { emitRunEnd } from './run-end.ts'
import { runFallback } from './run-fallback.ts'
import { guardFallback } from './answer-guard/guard-fallback.ts'
import type { RunView } from './run/run-view.ts'

/** An accepted answer: the response, its value, and the failure a rule accepted it with (partial mode). An ended attempt is one. */
export interface AcceptedAnswer<T> {
  readonly response: ModelResponse | undefined
  readonly value: T | string | undefined
  readonly failure: ValidationFailure | undefined
}

/** The result of an accepted answer; `recovered` is emitted when earlier attempts failed. */
export function succeed<T>(s: RunView<T>, answer: AcceptedAnswer<T>, fromFallback: boolean): GateResult<T> {
  const { response, value, failure: warnings } = answer
  const events = s.g.events
  // A fallback's answer follows attempts that all failed; a model's accepted answer is the last record.
  const failed = fromFallback ? s.records.length : s.records.length - 1
  const provider = fromFallback ? 'fallback' : (s.g.providers[s.providerIdx] as ResolvedProvider).name
  if (failed > 0 && events.has('recovered')) {
    const last = s.records[failed - 1] as AttemptRecord
    const recoveredVia = fromFallback ? 'fallback' : last.decision === 'retry-other' ? 'retry-other' : 'retry'
    events.emit('recovered', {
      runId: s.runId,
      ...s.tags,
      attempt: s.attempt + 1,
      failedAttempts: failed,
      provider,
      recoveredVia,
      priorFailures: failed,
      errorKind: last.errorKind,
    })
  }
  if (events.has('run_end')) emitRunEnd(s, { outcome: 'ok', kind: 'ok', provider, fromFallback })
  // A fresh object, the caller's alone: no listener ever holds it. What it shares with the events (the
  // response, usage, the attempt log) is frozen by the hub before any listener sees it; freezing the
  // result itself would cost two freezes (~50 ns, a sixth of the floor) per run and protect nothing.
  return {
    runId: s.runId,
    response: response as ModelResponse,
    // Partial mode: a rule accepted an answer that failed its schema; hand back what was parsed.
    value: (value ?? warnings?.parsed) as T,
    attempts: s.records,
    lastAttempt: s.records[s.records.length - 1] as AttemptRecord,
    usage: s.meter.usage,
    costUsd: s.meter.costUsd,
    provider,
    providerIdx: s.providerIdx,
    fromFallback,
    warnings,
  }
}

/** How the loop ends a run that cannot go on (its fail-fast error, events emitted). */
export type FailRun = (stop: RunStop) => Error

/** A `fallback` decision: the configured fallback's answer, validated (and screened by the output guards) like a model answer. */
export async function useFallback<T>(s: RunView<T>, scope: ReliabilityScope, ruleKind: string, fail: FailRun): Promise<GateResult<T>> {
  const g = s.g
  if (g.fallback === undefined)
    throw fail({ kind: 'no-fallback', reason: `rule ${ruleKind} decided fallback, but no fallback is configured`, phase: 'post-decide' })
  if (g.events.has('fallback')) g.events.emit('fallback', { runId: s.runId, ...s.tags, attempt: s.attempt + 1, kind: ruleKind })
  const given = await runFallback(s, g.fallback, scope)
  const verdict = given.ok ? await guardFallback(s, given) : given
  if (!verdict.ok) {
    const { kind, reason } = verdict
    throw fail({
      kind,
      reason,
      phase: 'post-decide',
      cause: 'cause' in verdict ? verdict.cause : undefined,
      failure: 'failure' in verdict ? verdict.failure : undefined,
    })
  }
  return succeed(s, { response: verdict.response, value: verdict.value, failure: undefined }, true)
}
