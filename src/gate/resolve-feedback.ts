import type { FeedbackForLLM } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'

/** Used when a rule's feedback function throws: the run goes on with this. */
export const GENERIC_FEEDBACK =
  'Your previous answer was rejected because it did not meet the required format. Answer again, following the instructions exactly.'

/** Resolves a rule's `feedbackForLLM`; a throwing (or rejecting) one yields {@link GENERIC_FEEDBACK}. */
export async function resolveFeedback(feedback: FeedbackForLLM, scope: ReliabilityScope, onError: (error: unknown) => void): Promise<string> {
  if (typeof feedback === 'string') return feedback
  try {
    const text = await feedback(scope)
    if (typeof text === 'string') return text
    onError(new TypeError(`feedbackForLLM returned ${typeof text}, expected a string`))
  } catch (error) {
    onError(error)
  }
  return GENERIC_FEEDBACK
}
