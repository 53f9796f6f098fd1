import type { ValidationIssue } from '../issue.ts'
import type { ValidationStage } from '../validation-failure.ts'
import { DEFAULT_MAX_ISSUES, oneLine } from './feedback-limits.ts'
import { formatIssueLines } from './format-issue-line.ts'

/** Everything {@link formatFeedback} needs to tell the model what to fix. */
export interface FeedbackInput {
  readonly target: 'final' | 'tool'
  readonly stage: ValidationStage
  readonly issues: readonly ValidationIssue[]
  /** The parse error, for the `json-parse` stage. */
  readonly parseError?: string | undefined
  /** The answer was cut off by the output token limit (`ValidationFailure.truncated`): the feedback says so. */
  readonly truncated?: boolean | undefined
  /** The tool whose arguments failed, for tool calls. */
  readonly toolName?: string | undefined
  /** A user-supplied hint, appended on its own line. */
  readonly retryHint?: string | undefined
  /**
   * The rejected output, shown under "Here is what you returned:". Leave it out where the retry
   * conversation already echoes the output as the assistant message (the gate does), so it is not
   * sent twice.
   */
  readonly previousOutput?: string | undefined
  /** Issue lines shown before `- … and N more issues`. @default 20 */
  readonly maxIssues?: number | undefined
}

// A parse error may list several broken values; it stays one bounded line.
const MAX_PARSE_ERROR = 600

/**
 * The built-in feedback prose: a header, one line per issue (at most `maxIssues`, then
 * `- … and N more issues`), a closing instruction, and the retry hint. Every quoted path, value and
 * message is bounded, so its size depends on `maxIssues`, not on what the model invented. Never
 * includes URLs; includes the rejected output only when `previousOutput` is given (not bounded here:
 * the gate bounds the whole retry tail).
 *
 * @example
 * formatFeedback({ target: 'final', stage: 'schema-validate', issues })
 */
export function formatFeedback(input: FeedbackInput): string {
  const shown = formatIssueLines(input.issues, input.maxIssues ?? DEFAULT_MAX_ISSUES)
  const [header, closing] = frame(input)
  // The Imperal seed sets its closing instruction apart from the issues of a tool call with a blank line.
  const lines = input.target === 'tool' || input.stage === 'tool-args' ? [...header, ...shown, '', closing] : [...header, ...shown, closing]
  if (input.retryHint !== undefined && input.retryHint !== '') lines.push(input.retryHint)
  return lines.join('\n')
}

function frame(input: FeedbackInput): [string[], string] {
  if (input.target === 'tool' || input.stage === 'tool-args') {
    // The Imperal seed's wording, so prompts tuned for it read the same; the tool result it answers names the call.
    return [['Your previous tool call had invalid arguments. Fix these issues:'], 'Retry the tool call with corrected arguments.']
  }
  // pyconveyor's wording for final answers, so prompts tuned for it read the same.
  const echo = input.previousOutput === undefined ? [] : ['Here is what you returned:', input.previousOutput]
  if (input.stage === 'json-parse' && input.truncated === true) {
    return [
      ['Your previous response was cut off by the output token limit before it was complete, so it could not be used.', ...echo],
      'Please return the complete JSON object again, more concisely so that it fits: no prose, no markdown fences, short values.',
    ]
  }
  if (input.stage === 'json-parse') {
    const reason = oneLine((input.parseError ?? 'no JSON value found').replace(/^not valid JSON:\s*/, ''), MAX_PARSE_ERROR)
    return [
      [`Your previous response was not valid JSON: ${reason}`, ...echo],
      'Please return only a valid JSON object, with no surrounding prose or markdown fences.',
    ]
  }
  return [['Your previous response failed schema validation.', ...echo, 'Validation errors:'], 'Please fix these issues and return a corrected JSON object.']
}
