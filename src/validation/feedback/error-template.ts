/** One error as a feedback template sees it (pyconveyor's names). */
export interface TemplateError {
  /** Rendered path, `entries[0].evidence`; `?` for the value itself (pyconveyor's location-less error). */
  readonly loc_str: string
  readonly msg: string
  readonly type: string
}

/** The variables a feedback template receives (pyconveyor's names, so its templates work unchanged). */
export interface FeedbackTemplateVars {
  readonly error_type: 'schema' | 'parse'
  readonly previous_output: string
  readonly errors: readonly TemplateError[]
  readonly parse_error_message: string
  /** The attempt this feedback is sent with (the failed one + 1), as pyconveyor numbers it. */
  readonly attempt: number
  readonly retry_hint: string
  readonly max_feedback_tokens: number
}

/** A feedback template: a function of the variables, or a Jinja-style string template. */
export type ErrorTemplate = string | ((vars: FeedbackTemplateVars) => string)
