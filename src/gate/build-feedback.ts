import type { ErrorTemplate } from '../validation/feedback/error-template.ts'
import { formatFeedback, truncateForFeedback } from '../validation/index.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'

/** What the feedback of a failed final answer is built from. */
export interface FeedbackContext {
  /** 1-indexed attempt that failed. */
  readonly attempt: number
  readonly retryHint: string | undefined
  readonly errorTemplate: ErrorTemplate | undefined
  readonly maxFeedbackChars: number
  readonly maxFeedbackTokens: number | undefined
  /** Reports a template that failed to render (the built-in feedback is used instead). */
  readonly onTemplateError: (error: unknown) => void
}

/** The built-in (or templated) feedback for a failed final answer. */
export function buildValidationFeedback(failure: ValidationFailure, ctx: FeedbackContext): string {
  return formatFeedback({
    target: 'final',
    stage: failure.stage,
    issues: failure.issues,
    ...(failure.stage === 'json-parse' ? { parseError: failure.parseError ?? failure.message } : {}),
    ...(ctx.retryHint !== undefined ? { retryHint: ctx.retryHint } : {}),
  })
}

/** The previous raw output as echoed in the tail: cut to the configured length with the marker. */
export function echoPreviousOutput(text: string, ctx: Pick<FeedbackContext, 'maxFeedbackChars' | 'maxFeedbackTokens'>): string {
  return truncateForFeedback(text, ctx.maxFeedbackChars)
}
