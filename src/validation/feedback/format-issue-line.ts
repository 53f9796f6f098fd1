import type { ValidationIssue } from '../issue.ts'
import { issueText } from './describe-issue.ts'

/**
 * One feedback line for one issue, path first; bounded (long keys and messages end with `…`).
 *
 * @example
 * formatIssueLine(issue) // "- 'amount': expected number, got \"USD 50\""
 */
export function formatIssueLine(issue: ValidationIssue): string {
  return `- ${issueText(issue)}`
}
