import type { ValidationIssue } from '../issue.ts'
import type { ValidationStage } from '../validation-failure.ts'
import { issueText } from './describe-issue.ts'
import { MAX_PROBLEM, oneLine } from './feedback-limits.ts'

const MAX_SUMMARISED = 5

/**
 * The one-line `ValidationFailure.message`, bounded: the first five issues in the words of the
 * feedback (without the action), then `and N more`. Identical failures give identical lines, but
 * failures that differ only beyond what the line names can give the same line too: compare
 * `ValidationFailure.signature` to tell them apart.
 *
 * @example
 * summarizeFailure('schema-validate', issues)
 * // "schema-validate: 'amount': expected number, got \"USD 50\"; 'extra': unknown field"
 */
export function summarizeFailure(stage: ValidationStage, issues: readonly ValidationIssue[], parseError?: string): string {
  if (issues.length === 0) return `${stage}: ${oneLine(parseError ?? 'the value was rejected', MAX_PROBLEM)}`
  const parts = issues.slice(0, MAX_SUMMARISED).map((issue) => issueText(issue, false))
  const more = issues.length - MAX_SUMMARISED
  const prefix = parseError === undefined ? '' : `${oneLine(parseError, MAX_PROBLEM)}; `
  return `${stage}: ${prefix}${parts.join('; ')}${more > 0 ? `; and ${more} more` : ''}`
}
