import type { Phase, ReliabilityScope } from '../rules/scope.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { frozenBaseRequest, frozenCallerRequest } from './frozen-attempt-request.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import type { RunView } from './run/run-view.ts'

/**
 * The readonly snapshot rules see. `attempt` counts the attempts made so far, as in agentfootprint:
 * 0 at PreCheck before the first call, 1 at PostDecide after it. What it shares with the run is
 * frozen (the validation history and its signatures, the issues, the requests) or copied (the
 * usage), so a rule that edits its scope changes neither the run's count, nor its stuck-loop
 * detection, nor the caller's request or what is sent.
 */
export function scopeOf<T>(s: RunView<T>, phase: Phase, outcome: AttemptOutcome<T> | undefined): ReliabilityScope {
  const g = s.g
  const entry = g.providers[s.providerIdx] as ResolvedProvider
  const f = outcome?.failure
  // A copy: the meter's own object (an answer's usage, after one attempt) must not be edited by a rule.
  const usage = { ...s.meter.usage }
  const base = s.base
  return {
    phase,
    attempt: outcome === undefined ? s.attempt : s.attempt + 1,
    runId: s.runId,
    // Frozen copies, made when a rule first reads them (once per run): an edit in place reaches
    // neither the caller's conversation nor what the next attempt sends.
    get request() {
      return frozenCallerRequest(s)
    },
    get attemptRequest() {
      return frozenBaseRequest(s, base)
    },
    attemptTail: s.tail,
    providerIdx: s.providerIdx,
    providerName: entry.name,
    providersCount: g.providers.length,
    canSwitchProvider: s.providerIdx + 1 < g.providers.length,
    response: outcome?.response,
    error: outcome?.error,
    errorKind: outcome?.kind ?? 'ok',
    latencyMs: outcome?.latencyMs ?? 0,
    validationError:
      f === undefined ? undefined : { message: f.message, stage: f.stage, path: f.path, issues: f.issues, rawOutput: f.rawOutput, signature: f.signature },
    validationErrorHistory: s.history,
    validationErrorSignatures: s.signatures,
    usage,
    cumulativeInputTokens: usage.inputTokens,
    cumulativeOutputTokens: usage.outputTokens,
    cumulativeCostUsd: s.meter.costUsd,
    lastAttemptCostUsd: s.meter.lastCostUsd,
    unpricedAttempts: s.meter.unpricedAttempts,
    // After an attempt its end time is now; before one, a retry delay may have passed.
    elapsedMs: (outcome === undefined ? g.now() : s.lastTime) - s.started,
    retryAfterMs: s.retryAfterMs,
    transientFailures: s.transientFailures,
    value: outcome?.value,
  }
}
