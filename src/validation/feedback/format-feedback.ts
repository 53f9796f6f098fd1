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
  /** Issue lines shown before `- … and N more issues`. @default 20 */
  readonly maxIssues?: number | undefined
}

const DEFAULT_MAX_ISSUES = 20

/**
 * The built-in feedback prose: a header, one line per issue, a closing instruction, and the retry
 * hint. Never includes URLs or the rejected value itself.
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
  const lines = [header, ...shown, closing]
  if (input.retryHint !== undefined && input.retryHint !== '') lines.push(input.retryHint)
  return lines.join('\n')
}

function frame(input: FeedbackInput): [string, string] {
  if (input.target === 'tool' || input.stage === 'tool-args') {
    const tool = input.toolName ?? 'the tool'
    return [
      `The arguments of your call to tool '${tool}' are invalid:`,
      `Call '${tool}' again with corrected arguments, fixing every issue listed above.`,
    ]
  }
  if (input.stage === 'json-parse') {
    return [
      `Your previous answer could not be parsed as JSON: ${input.parseError ?? 'no JSON value found'}`,
      'Reply again with only a valid JSON value, with no surrounding prose or markdown fences.',
    ]
  }
  return [
    'Your previous answer did not match the required JSON schema:',
    'Reply again with only the corrected JSON value, fixing every issue listed above.',
  ]
}
