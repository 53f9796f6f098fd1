import type { Message } from '../model/message.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { buildValidationFeedback, echoPreviousOutput, type FeedbackContext } from './build-feedback.ts'
import { validationTail } from './ephemeral-tail.ts'
import { resolveFeedback } from './resolve-feedback.ts'
import type { RunState } from './run-state.ts'

/**
 * Builds the ephemeral tail of the next attempt and returns the feedback it carries: the rule's
 * `feedbackForLLM` when it has one, else the built-in validation prose (or the user's template).
 * `latest` replaces the previous tail, `accumulate` appends to it; without `errorFeedback` the
 * next attempt resends the base request alone.
 */
export async function nextTail<T>(
  s: RunState<T>,
  rule: ReliabilityRule | undefined,
  scope: ReliabilityScope,
  outcome: AttemptOutcome<T>,
  onRuleError: (rule: ReliabilityRule, error: unknown) => void,
): Promise<string | undefined> {
  const g = s.g
  if (!g.errorFeedback) {
    s.tail = []
    return undefined
  }
  let feedback: string | undefined
  if (rule?.feedbackForLLM !== undefined) {
    feedback = await resolveFeedback(rule.feedbackForLLM, scope, (e) => onRuleError(rule, e))
  } else if (outcome.failure !== undefined) {
    feedback = buildValidationFeedback(outcome.failure, feedbackContext(s))
  }
  if (feedback === undefined) return undefined
  const pair: readonly Message[] =
    outcome.response !== undefined
      ? validationTail(echoPreviousOutput(outcome.response.content, g), feedback)
      : [{ role: 'user', content: feedback, ephemeral: true }]
  s.tail = g.feedbackMode === 'accumulate' ? s.tail.concat(pair) : pair
  return feedback
}

/** Built at most once per retry, and only when the built-in feedback or a template is rendered. */
function feedbackContext<T>(s: RunState<T>): FeedbackContext {
  const g = s.g
  const attempt = s.attempt + 1
  return {
    attempt,
    retryHint: g.retryHint,
    errorTemplate: g.errorTemplate,
    maxFeedbackChars: g.maxFeedbackChars,
    maxFeedbackTokens: g.maxFeedbackTokens,
    onTemplateError: (error: unknown) => {
      if (g.events.has('template_error')) g.events.emit('template_error', { runId: s.runId, ...s.tags, attempt, error })
    },
  }
}
