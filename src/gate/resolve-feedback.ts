import { callUser } from '../model/user-code.ts'
import type { FeedbackForLLM } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'

/** Used when a rule's feedback function throws: the run goes on with this (agentfootprint's words). */
export const GENERIC_FEEDBACK = 'Previous output failed validation. Return valid JSON conforming to the schema.'

/**
 * Resolves a rule's `feedbackForLLM` at the user-code boundary: a throwing or rejecting one, or one
 * that answers no string, or a blank one, yields {@link GENERIC_FEEDBACK} (reported through
 * `onError`); one still pending when `signal` aborts ends the wait (the loop then ends the run,
 * aborted). A blank feedback would leave the retry ending on the echoed answer wherever a blank
 * message is dropped (Anthropic refuses one), which the model reads as its own answer to continue.
 */
export async function resolveFeedback(
  feedback: FeedbackForLLM,
  scope: ReliabilityScope,
  onError: (error: unknown) => void,
  signal?: AbortSignal,
): Promise<string> {
  if (typeof feedback === 'string') return feedback.trim() === '' ? blank(onError) : feedback
  const called = callUser(() => feedback(scope), signal)
  const answer = called instanceof Promise ? await called : called
  if (answer.ok) {
    if (typeof answer.value === 'string') return answer.value.trim() === '' ? blank(onError) : answer.value
    onError(new TypeError(`feedbackForLLM returned ${typeof answer.value}, expected a string`))
  } else if (!answer.aborted) {
    onError(answer.error)
  }
  return GENERIC_FEEDBACK
}

function blank(onError: (error: unknown) => void): string {
  onError(new TypeError('feedbackForLLM gave a blank text, expected the feedback to send'))
  return GENERIC_FEEDBACK
}
