import { DEFAULT_MAX_FEEDBACK_CHARS, type EchoLimits } from '../validation/index.ts'

/** The gate's feedback bounds, which a tool-argument tail honours too. */
export function feedbackLimits(config: { readonly maxFeedbackChars?: number | undefined; readonly maxFeedbackTokens?: number | undefined }): EchoLimits {
  return { maxChars: config.maxFeedbackChars ?? DEFAULT_MAX_FEEDBACK_CHARS, maxTokens: config.maxFeedbackTokens }
}
