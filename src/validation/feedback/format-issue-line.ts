import type { ValidationIssue } from '../issue.ts'
import { describeIssue, pathLabel } from './describe-issue.ts'

/**
 * One feedback line for one issue, path first.
 *
 * @example
 * formatIssueLine(issue) // "- 'amount': expected number, got \"USD 50\""
 */
export function formatIssueLine(issue: ValidationIssue): string {
  const { problem, action } = describeIssue(issue)
  return `- '${pathLabel(issue)}': ${problem}${action === undefined ? '' : ` — ${action}`}`
}
