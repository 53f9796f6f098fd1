import type { ReliabilityScope } from '../../src/index.ts'

/**
 * A whole `ReliabilityScope` for a rule under test, from only the fields the test is about. The rest
 * is the scope of a first attempt that succeeded at no cost on the only provider: PostDecide, attempt
 * 1, error kind `ok`, no validation failure, zero usage, cost and time. The fields the gate derives
 * follow what is given: `canSwitchProvider` from `providerIdx` and `providersCount`, the cumulative
 * token counts from `usage`.
 *
 * @example
 * expect(rule.when(scopeOf({ errorKind: 'rate-limit', transientFailures: 1 }))).toBe(true)
 */
export function scopeOf(partial: Partial<ReliabilityScope> = {}): ReliabilityScope {
  const providerIdx = partial.providerIdx ?? 0
  const providersCount = partial.providersCount ?? 1
  const usage = partial.usage ?? { inputTokens: 0, outputTokens: 0 }
  return {
    phase: 'post-decide',
    attempt: 1,
    runId: 'run-1',
    request: { messages: [] },
    providerIdx,
    providerName: 'p',
    providersCount,
    canSwitchProvider: providerIdx + 1 < providersCount,
    errorKind: 'ok',
    latencyMs: 0,
    validationErrorHistory: [],
    usage,
    cumulativeInputTokens: usage.inputTokens,
    cumulativeOutputTokens: usage.outputTokens,
    cumulativeCostUsd: 0,
    lastAttemptCostUsd: 0,
    unpricedAttempts: 0,
    elapsedMs: 0,
    transientFailures: 0,
    ...partial,
  }
}
