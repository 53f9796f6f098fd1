import { raceAbort } from '../policies/deadline/race-abort.ts'
import { sleep } from '../policies/deadline/sleep.ts'
import { adjustRequestFor } from '../rules/retry-truncated.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { baseFor } from './base-request.ts'
import { failFast } from './fail-fast.ts'
import { nextTail } from './next-tail.ts'
import { recordAttempt } from './record-attempt.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { reportRuleError } from './rule-error.ts'
import { ruleDelay } from './rule-delay.ts'
import type { RunState } from './run-state.ts'

/**
 * A `retry` or `retry-other` decision: the safety cap and the provider list first, then the next
 * attempt (ephemeral tail, provider, request), any delay, and `undefined`: attempt again. Whatever
 * ends the run here is a fail-fast error with the attempt logged.
 */
export async function prepareRetry<T>(
  s: RunState<T>,
  decision: 'retry' | 'retry-other',
  rule: ReliabilityRule | undefined,
  scope: ReliabilityScope,
  outcome: AttemptOutcome<T>,
  ruleKind: string,
): Promise<undefined> {
  const g = s.g
  const from = g.providers[s.providerIdx] as ResolvedProvider
  if (s.attempt + 1 >= g.maxAttempts) {
    recordAttempt(s, outcome, 'fail-fast', 'max-attempts', rule, undefined)
    throw failFast(s, 'max-attempts', `the safety cap of ${g.maxAttempts} attempts was reached`, 'post-decide', outcome.error, outcome.failure)
  }
  if (decision === 'retry-other' && s.providerIdx + 1 >= g.providers.length) {
    recordAttempt(s, outcome, 'fail-fast', 'no-more-providers', rule, undefined)
    throw failFast(s, 'no-more-providers', `no provider left after ${from.name} (${outcome.kind})`, 'post-decide', outcome.error, outcome.failure)
  }
  const delayMs = ruleDelay(rule, scope, (error) => reportRuleError(s, rule as ReliabilityRule, 'delayMs', error))
  // Retrying an open breaker without waiting out its cooldown would only spin to the safety cap.
  if (outcome.kind === 'circuit-open' && decision === 'retry' && !(delayMs >= (outcome.retryAfterMs ?? Number.POSITIVE_INFINITY))) {
    recordAttempt(s, outcome, 'fail-fast', 'circuit-open', rule, undefined)
    throw failFast(
      s,
      'circuit-open',
      `the circuit breaker of provider "${from.name}" is open and no rule failed over or waited out its cooldown`,
      'post-decide',
      outcome.error,
    )
  }
  let feedback: string | undefined
  try {
    // An async feedbackForLLM is user code: it must not hold the run past its signal.
    feedback = await raceAbort(
      nextTail(s, rule, scope, outcome, (r, e) => reportRuleError(s, r, 'feedbackForLLM', e)),
      s.signal,
    )
  } catch (error) {
    if (s.signal?.aborted !== true) throw error
    recordAttempt(s, outcome, 'fail-fast', 'aborted', rule, undefined)
    throw failFast(s, 'aborted', 'the run was aborted while the feedback for the next attempt was being built', 'post-decide', error)
  }
  recordAttempt(s, outcome, decision, ruleKind, rule, feedback)

  if (decision === 'retry-other') {
    s.providerIdx++
    s.base = baseFor(s, s.providerIdx)
  }
  // A rule may change the next request, e.g. retryTruncated asks for a larger maxTokens.
  s.base = adjustRequestFor(rule, scope, s.base)
  const to = g.providers[s.providerIdx] as ResolvedProvider
  if (g.events.has('retry')) {
    g.events.emit('retry', {
      runId: s.runId,
      ...s.tags,
      attempt: s.attempt + 1,
      nextAttempt: s.attempt + 2,
      decision,
      fromProvider: from.name,
      toProvider: to.name,
      delayMs,
      feedback,
      tail: s.tail,
    })
  }
  s.attempt++
  if (delayMs > 0) {
    try {
      await sleep(delayMs, s.signal)
    } catch (error) {
      throw failFast(s, 'aborted', 'the run was aborted while waiting to retry', 'post-decide', error)
    }
  }
  return undefined
}
