import { assertObject } from '../../model/argument-checks.ts'
import type { ValidationIssue } from '../issue.ts'
import { isUncheckedFormat } from '../schema/bounded-format.ts'
import { MAX_PROBLEM, MAX_QUOTED_PATH, oneLine } from './feedback-limits.ts'

/** An issue in words: what is wrong, and (for some codes) what to do about it. */
export interface IssueDescription {
  /** One line, at most `MAX_PROBLEM` characters (plus `…`). */
  readonly problem: string
  readonly action?: string
}

// The words a model understands best for each expected type.
const TYPE_WORDS: Readonly<Record<string, string>> = { array: 'list/array' }

/** Describes one issue in prose, shared by the feedback lines, the failure summary and the attempt log. */
export function describeIssue(issue: ValidationIssue): IssueDescription {
  const { problem, action } = words(issue)
  const bounded = oneLine(problem, MAX_PROBLEM)
  return action === undefined ? { problem: bounded } : { problem: bounded, action }
}

function words(issue: ValidationIssue): { problem: string; action?: string } {
  const got = issue.received === undefined ? '' : `, got ${issue.received}`
  switch (issue.code) {
    case 'missing_required':
      return { problem: 'required field is missing', action: 'provide a value' }
    case 'unknown_property':
      return { problem: 'unknown field', action: 'remove it' }
    case 'forbidden_key':
      return { problem: 'forbidden key', action: 'remove it' }
    case 'invalid_type':
      if (issue.expected === undefined) break
      return { problem: `expected ${TYPE_WORDS[issue.expected] ?? issue.expected}${got}` }
    case 'invalid_format':
      // A string too long to check is told so (its message), not that its format is wrong.
      if (issue.expected === undefined || isUncheckedFormat(issue.message)) break
      return { problem: `expected ${formatWords(issue.expected)}${got}` }
    case 'invalid_enum':
      if (issue.expected === undefined) break
      return { problem: `expected ${issue.expected}${got}` }
    case 'other':
      break
  }
  return { problem: issue.message }
}

function formatWords(format: string): string {
  if (format === 'date-time') return "ISO datetime (e.g. '2026-05-03T00:00:00')"
  if (format === 'date') return "ISO date (e.g. '2026-05-03')"
  return `${format} format`
}

/** The path as the prose quotes it: `(root)` for the value itself, cut to `MAX_QUOTED_PATH` characters. */
export function pathLabel(issue: ValidationIssue): string {
  return issue.path === '' ? '(root)' : oneLine(issue.path, MAX_QUOTED_PATH)
}

/**
 * One issue as every report words it, path first: `'amount': expected number, got "USD 50"`, with
 * the action (`— remove it`) when `withAction`. Feedback lines, failure summaries, attempt logs and
 * template errors all come from here, so an issue reads the same everywhere. Bounded.
 *
 * @example
 * issueText(issue) // "'extra': unknown field — remove it"
 */
export function issueText(issue: ValidationIssue, withAction = true): string {
  assertObject(issue, 'issueText: issue', 'a validation issue { path, code, message, ... }')
  return `'${pathLabel(issue)}': ${withAction ? issueProblem(issue) : describeIssue(issue).problem}`
}

/**
 * What is wrong with an issue's value and, when there is one, what to do, as the feedback words
 * them (`unknown field — remove it`), without the path. Bounded.
 *
 * @example
 * issueProblem(issue) // 'required field is missing — provide a value'
 */
export function issueProblem(issue: ValidationIssue): string {
  const { problem, action } = describeIssue(issue)
  return action === undefined ? problem : `${problem} — ${action}`
}
