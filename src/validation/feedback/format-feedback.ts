import type { ValidationIssue } from '../issue.ts'
import type { ValidationStage } from '../validation-failure.ts'
import { formatIssueLine } from './format-issue-line.ts'

/** Everything {@link formatFeedback} needs to tell the model what to fix. */
export interface FeedbackInput {
  readonly target: 'final' | 'tool'
  readonly stage: ValidationStage
  readonly issues: readonly ValidationIssue[]
  /** The parse error, for the `json-parse` stage. */
  readonly parseError?: string | undefined
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

const DEFAULT_MAX_ISSUES = 20

/**
 * The built-in feedback prose: a header, one line per issue, a closing instruction, and the retry
 * hint. Never includes URLs; includes the rejected output only when `previousOutput` is given.
 *
 * @example
 * formatFeedback({ target: 'final', stage: 'schema-validate', issues })
 */
export function formatFeedback(input: FeedbackInput): string {
  const maxIssues = Math.max(0, input.maxIssues ?? DEFAULT_MAX_ISSUES)
  const shown = input.issues.slice(0, maxIssues).map(formatIssueLine)
  const hidden = input.issues.length - shown.length
  if (hidden > 0) shown.push(`- … and ${hidden} more issue${hidden === 1 ? '' : 's'}`)
  const [header, closing] = frame(input)
  const lines = [...header, ...shown, closing]
  if (input.retryHint !== undefined && input.retryHint !== '') lines.push(input.retryHint)
  return lines.join('\n')
}

function frame(input: FeedbackInput): [string[], string] {
  if (input.target === 'tool' || input.stage === 'tool-args') {
    const tool = input.toolName ?? 'the tool'
    return [
      [`The arguments of your call to tool '${tool}' are invalid:`],
      `Call '${tool}' again with corrected arguments, fixing every issue listed above.`,
    ]
  }
  // pyconveyor's wording for final answers, so prompts tuned for it read the same.
  const echo = input.previousOutput === undefined ? [] : ['Here is what you returned:', input.previousOutput]
  if (input.stage === 'json-parse') {
    const reason = (input.parseError ?? 'no JSON value found').replace(/^not valid JSON:\s*/, '')
    return [
      [`Your previous response was not valid JSON: ${reason}`, ...echo],
      'Please return only a valid JSON object, with no surrounding prose or markdown fences.',
    ]
  }
  return [
    ['Your previous response failed schema validation.', ...echo, 'Validation errors:'],
    'Please fix these issues and return a corrected JSON object.',
  ]
}
