import type { ValidationIssue } from '../issue.ts'
import type { ValidationFailure } from '../validation-failure.ts'
import { issueProblem, pathLabel } from './describe-issue.ts'
import type { FeedbackTemplateVars, TemplateError } from './error-template.ts'

/** What {@link feedbackTemplateVars} needs besides the failure. */
export interface TemplateVarsInput {
  /** The attempt that failed, numbered from 1 (the template's `attempt` is the next one). */
  readonly attempt: number
  /** The previous output as echoed to the model (already cut to length). */
  readonly previousOutput: string
  readonly retryHint?: string | undefined
  /** The configured token cap; 0 when none is set. */
  readonly maxFeedbackTokens?: number | undefined
}

/**
 * The variables of a feedback template, with pyconveyor's names: `error_type`, `previous_output`,
 * `errors` (each `loc_str`, `msg`, `type`; `loc_str` is `?` for the value itself, as in pyconveyor), `parse_error_message`, `attempt`, `retry_hint`,
 * `max_feedback_tokens`. `attempt` is the number of the attempt about to be made, as pyconveyor
 * passes it (`attempt_num + 1`): 2 in the feedback of the first failure.
 *
 * @example
 * feedbackTemplateVars(failure, { attempt: 1, previousOutput: '{"amount": "USD 50"}' })
 */
export function feedbackTemplateVars(failure: ValidationFailure, input: TemplateVarsInput): FeedbackTemplateVars {
  const parse = failure.stage === 'json-parse'
  return {
    error_type: parse ? 'parse' : 'schema',
    previous_output: input.previousOutput,
    errors: failure.issues.map(templateError),
    parse_error_message: parse ? (failure.parseError ?? failure.message) : '',
    attempt: input.attempt + 1,
    retry_hint: input.retryHint ?? '',
    max_feedback_tokens: input.maxFeedbackTokens ?? 0,
  }
}

function templateError(issue: ValidationIssue): TemplateError {
  return { loc_str: locStr(issue), msg: issueProblem(issue), type: issue.code }
}

/**
 * An issue's location as pyconveyor renders it (`loc_str`): the bounded path, `entries[0].evidence`,
 * or `?` for an error with no location (the value itself, e.g. a list where an object belongs).
 */
export function locStr(issue: ValidationIssue): string {
  return issue.path === '' ? '?' : pathLabel(issue)
}

/**
 * One issue as pyconveyor's attempt log writes it, `f"{e.loc_str}: {e.msg}"`, with the template's
 * `loc_str` and `msg`: `amount: expected number, got "USD 50"`. Bounded.
 *
 * @example
 * attemptLogLine(issue) // 'currency: required field is missing — provide a value'
 */
export function attemptLogLine(issue: ValidationIssue): string {
  return `${locStr(issue)}: ${issueProblem(issue)}`
}
