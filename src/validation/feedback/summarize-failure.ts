import type { ValidationIssue } from '../issue.ts'
import type { ValidationStage } from '../validation-failure.ts'
import { describeIssue, pathLabel } from './describe-issue.ts'

const MAX_SUMMARISED = 5
const MAX_PROBLEM_CHARS = 160

/**
 * The one-line `ValidationFailure.message`: identical failures give identical lines, which is what
 * stuck-loop detection compares.
 *
 * @example
 * summarizeFailure('schema-validate', issues)
 * // "schema-validate: 'amount': expected number, got \"USD 50\"; 'extra': unknown field"
 */
export function summarizeFailure(stage: ValidationStage, issues: readonly ValidationIssue[], parseError?: string): string {
  if (issues.length === 0) return `${stage}: ${oneLine(parseError ?? 'the value was rejected')}`
  const parts = issues.slice(0, MAX_SUMMARISED).map((issue) => `'${pathLabel(issue)}': ${oneLine(describeIssue(issue).problem)}`)
  const more = issues.length - MAX_SUMMARISED
  const prefix = parseError === undefined ? '' : `${oneLine(parseError)}; `
  return `${stage}: ${prefix}${parts.join('; ')}${more > 0 ? `; and ${more} more` : ''}`
}

// Validator messages may span lines or be long; the summary stays one bounded line.
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > MAX_PROBLEM_CHARS ? `${flat.slice(0, MAX_PROBLEM_CHARS)}…` : flat
}
