import type { Phase, ReliabilityScope } from '../rules/scope.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import type { RunView } from './run/run-view.ts'

/**
 * The readonly snapshot rules see. `attempt` counts the attempts made so far, as in agentfootprint:
 * 0 at PreCheck before the first call, 1 at PostDecide after it.
 */
export function scopeOf<T>(s: RunView<T>, phase: Phase, outcome: AttemptOutcome<T> | undefined): ReliabilityScope {
  const g = s.g
  const entry = g.providers[s.providerIdx] as ResolvedProvider
  const f = outcome?.failure
  const usage = s.meter.usage
  return {
    phase,
    attempt: outcome === undefined ? s.attempt : s.attempt + 1,
    runId: s.runId,
    request: s.request,
    attemptRequest: s.base,
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
