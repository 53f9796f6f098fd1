import { assertObject } from '../../model/argument-checks.ts'
import type { ValidationIssue } from '../issue.ts'
import { issueText } from './describe-issue.ts'
import { DEFAULT_MAX_ISSUES } from './feedback-limits.ts'

/**
 * One feedback line for one issue, path first; bounded (long keys and messages end with `…`).
 *
 * @example
 * formatIssueLine(issue) // "- 'amount': expected number, got \"USD 50\""
 */
export function formatIssueLine(issue: ValidationIssue): string {
  assertObject(issue, 'formatIssueLine: issue', 'a validation issue { path, code, message, ... }')
  return `- ${issueText(issue)}`
}

/**
 * The feedback lines for a list of issues: at most `max` of them, then `- … and N more issues`, so
 * the lines stay bounded however many issues the validator found.
 *
 * @example
 * formatIssueLines(issues, 2) // ["- 'a': ...", "- 'b': ...", '- … and 3 more issues']
 */
export function formatIssueLines(issues: readonly ValidationIssue[], max: number = DEFAULT_MAX_ISSUES): string[] {
  const shown = issues.slice(0, Math.max(0, max)).map(formatIssueLine)
  const hidden = issues.length - shown.length
  if (hidden > 0) shown.push(`- … and ${hidden} more issue${hidden === 1 ? '' : 's'}`)
  return shown
}
