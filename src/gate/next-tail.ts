import type { Message } from '../model/message.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import { fitTail } from '../validation/feedback/fit-tail.ts'
import { truncateEcho } from '../validation/feedback/truncate-echo.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { buildValidationFeedback, type FeedbackContext } from './build-feedback.ts'
import { validationTail } from './ephemeral-tail.ts'
import { resolveFeedback } from './resolve-feedback.ts'
import type { RunState } from './run-state.ts'

/**
 * Builds the ephemeral tail of the next attempt and returns the feedback it carries: the rule's
 * `feedbackForLLM` when it has one, else the built-in validation prose (or the user's template).
 * The tail (echo of the previous output and feedback together) fits `maxFeedbackChars` and
 * `maxFeedbackTokens`, whatever the model invented; the feedback is kept whole first, the echo gets
 * the rest, and whatever is cut ends with the marker. `latest` replaces the previous tail,
 * `accumulate` appends to it (each pair bounded); without `errorFeedback` the next attempt resends
 * the base request alone.
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
  const limits = { maxChars: g.maxFeedbackChars, maxTokens: g.maxFeedbackTokens }
  let pair: readonly Message[]
  if (outcome.response !== undefined) {
    const fitted = fitTail(feedback, outcome.response.content, limits)
    feedback = fitted.feedback
    pair = validationTail(fitted.echo, feedback)
  } else {
    feedback = truncateEcho(feedback, limits)
    pair = [{ role: 'user', content: feedback, ephemeral: true }]
  }
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
