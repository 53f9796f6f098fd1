import type { Message } from '../model/message.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import { fitTail } from '../validation/feedback/fit-tail.ts'
import { truncateEcho } from '../validation/feedback/truncate-echo.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { buildValidationFeedback, type FeedbackContext } from './build-feedback.ts'
import { validationTail } from './ephemeral-tail.ts'
import { resolveFeedback } from './resolve-feedback.ts'
import { reportRuleError } from './rule-error.ts'
import type { RunView } from './run/run-view.ts'

/** The next attempt's ephemeral tail and the feedback it carries (`undefined`: none). */
export interface NextTail {
  readonly feedback: string | undefined
  readonly tail: readonly Message[]
}

const NO_TAIL: readonly Message[] = Object.freeze([])
/** `accumulate` keeps the text of about this many bounded pairs: the tail never grows past it. */
const ACCUMULATED_PAIRS = 5

/**
 * Builds the ephemeral tail of the next attempt and the feedback it carries: the rule's
 * `feedbackForLLM` when it has one, else the built-in validation prose (or the user's template).
 * The tail (echo of the previous output and feedback together) fits `maxFeedbackChars` and
 * `maxFeedbackTokens`, whatever the model invented; the feedback is kept whole first, the echo gets
 * the rest, and whatever is cut ends with the marker. `latest` replaces the previous tail,
 * `accumulate` appends to it, the whole tail bounded by five times `maxFeedbackChars` (the oldest
 * pairs go first);
 * without `errorFeedback` the next attempt resends the base request alone.
 */
export async function nextTail<T>(run: RunView<T>, rule: ReliabilityRule | undefined, scope: ReliabilityScope, outcome: AttemptOutcome<T>): Promise<NextTail> {
  const g = run.g
  if (!g.errorFeedback) return { feedback: undefined, tail: NO_TAIL }
  let feedback: string | undefined
  if (rule?.feedbackForLLM !== undefined) {
    feedback = await resolveFeedback(rule.feedbackForLLM, scope, (e) => reportRuleError(run, rule, 'feedbackForLLM', e), run.signal)
  } else if (outcome.failure !== undefined) {
    feedback = buildValidationFeedback(outcome.failure, feedbackContext(run))
  }
  if (feedback === undefined) return { feedback: undefined, tail: run.tail }
  const limits = { maxChars: g.maxFeedbackChars, maxTokens: g.maxFeedbackTokens }
  let pair: readonly Message[]
  if (outcome.response !== undefined) {
    const fitted = fitTail(feedback, outcome.response.content, limits)
    feedback = fitted.feedback
    pair = validationTail(fitted.echo, feedback)
  } else {
    feedback = truncateEcho(feedback, limits)
    pair = Object.freeze([Object.freeze<Message>({ role: 'user', content: feedback, ephemeral: true })])
  }
  return { feedback, tail: g.feedbackMode === 'accumulate' ? Object.freeze(boundedTail(run.tail.concat(pair), g.maxFeedbackChars * ACCUMULATED_PAIRS)) : pair }
}

/**
 * The accumulated tail within the feedback bound: whole pairs (an answer's echo and its feedback)
 * are dropped oldest first until the tail's text fits; the newest pair, bounded on its own, stays.
 */
function boundedTail(tail: readonly Message[], maxChars: number): readonly Message[] {
  let chars = 0
  for (const m of tail) chars += m.content.length
  let from = 0
  while (chars > maxChars && tail.length - from > 2) {
    const drop = tail[from]?.role === 'assistant' ? 2 : 1
    for (let i = 0; i < drop; i++) chars -= (tail[from + i] as Message).content.length
    from += drop
  }
  return from === 0 ? tail : tail.slice(from)
}

/** Built at most once per retry, and only when the built-in feedback or a template is rendered. */
function feedbackContext<T>(run: RunView<T>): FeedbackContext {
  const g = run.g
  const attempt = run.attempt + 1
  return {
    attempt,
    retryHint: g.retryHint,
    errorTemplate: g.errorTemplate,
    maxFeedbackChars: g.maxFeedbackChars,
    maxFeedbackTokens: g.maxFeedbackTokens,
    onTemplateError: (error: unknown) => {
      if (g.events.has('template_error')) g.events.emit('template_error', { runId: run.runId, ...run.tags, attempt, error })
    },
  }
}
