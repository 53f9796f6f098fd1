import type { ErrorTemplate } from '../validation/feedback/error-template.ts'
import { formatFeedback } from '../validation/feedback/format-feedback.ts'
import { renderErrorTemplate } from '../validation/feedback/render-template.ts'
import { feedbackTemplateVars } from '../validation/feedback/template-vars.ts'
import { truncateEcho } from '../validation/feedback/truncate-echo.ts'
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

/**
 * The feedback for a failed final answer: the user's `errorTemplate` when one is set and renders,
 * else the built-in prose. The built-in prose leaves out the previous output, because the retry
 * conversation already echoes it as the assistant message; a template may still use
 * `previous_output`. Not bounded here: the caller fits the whole tail to the feedback bounds.
 */
export function buildValidationFeedback(failure: ValidationFailure, ctx: FeedbackContext): string {
  if (ctx.errorTemplate !== undefined) {
    const vars = feedbackTemplateVars(failure, {
      attempt: ctx.attempt,
      previousOutput: echoPreviousOutput(failure.rawOutput ?? '', ctx),
      retryHint: ctx.retryHint,
      maxFeedbackTokens: ctx.maxFeedbackTokens,
    })
    const rendered = renderErrorTemplate(ctx.errorTemplate, vars)
    if (rendered.ok) return rendered.text
    ctx.onTemplateError(rendered.error)
  }
  return formatFeedback({
    target: 'final',
    stage: failure.stage,
    issues: failure.issues,
    truncated: failure.truncated,
    ...(failure.stage === 'json-parse' ? { parseError: failure.parseError ?? failure.message } : {}),
    ...(ctx.retryHint !== undefined ? { retryHint: ctx.retryHint } : {}),
  })
}

/**
 * The previous raw output as a template's `previous_output`: cut to `maxFeedbackChars` characters
 * and to `maxFeedbackTokens` tokens (o200k_base; an estimate for non-OpenAI models), with the
 * marker. (The echo in the tail itself gets what the feedback leaves of those bounds.)
 */
export function echoPreviousOutput(text: string, ctx: Pick<FeedbackContext, 'maxFeedbackChars' | 'maxFeedbackTokens'>): string {
  return truncateEcho(text, { maxChars: ctx.maxFeedbackChars, maxTokens: ctx.maxFeedbackTokens })
}
