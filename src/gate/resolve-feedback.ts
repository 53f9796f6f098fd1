import { callUser } from '../model/user-code.ts'
import type { FeedbackForLLM } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'

/** Used when a rule's feedback function throws: the run goes on with this (agentfootprint's words). */
export const GENERIC_FEEDBACK = 'Previous output failed validation. Return valid JSON conforming to the schema.'

/**
 * Resolves a rule's `feedbackForLLM` at the user-code boundary: a throwing or rejecting one, or one
 * that answers no string, yields {@link GENERIC_FEEDBACK} (reported through `onError`); one still
 * pending when `signal` aborts ends the wait (the loop then ends the run, aborted).
 */
export async function resolveFeedback(
  feedback: FeedbackForLLM,
  scope: ReliabilityScope,
  onError: (error: unknown) => void,
  signal?: AbortSignal,
): Promise<string> {
  if (typeof feedback === 'string') return feedback
  const called = callUser(() => feedback(scope), signal)
  const answer = called instanceof Promise ? await called : called
  if (answer.ok) {
    if (typeof answer.value === 'string') return answer.value
    onError(new TypeError(`feedbackForLLM returned ${typeof answer.value}, expected a string`))
  } else if (!answer.aborted) {
    onError(answer.error)
  }
  return GENERIC_FEEDBACK
}
