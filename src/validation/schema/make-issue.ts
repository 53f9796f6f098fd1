import type { IssueCode, ValidationIssue } from '../issue.ts'
import { renderPath, type PathSegment } from './path.ts'
import { cutAt } from './received.ts'
import { showInvisible } from './visible-text.ts'

/**
 * Issues collected for one rejected value, whatever the validator (TypeBox's own default stops at 8,
 * which would lose issues and make different answers look alike; Zod reports every one, which for a
 * list of a million wrong items would take seconds to word): the feedback lists the first ones,
 * then "and N more".
 */
export const MAX_COLLECTED_ISSUES = 1000

/** Builds a {@link ValidationIssue}, leaving out `expected`/`received` when they are unknown. */
export function makeIssue(init: {
  segments: readonly PathSegment[]
  code: IssueCode
  message: string
  expected?: string | undefined
  received?: string | undefined
}): ValidationIssue {
  const issue: { -readonly [K in keyof ValidationIssue]: ValidationIssue[K] } = {
    path: renderPath(init.segments),
    segments: [...init.segments],
    code: init.code,
    message: init.message,
  }
  if (init.expected !== undefined) issue.expected = init.expected
  if (init.received !== undefined) issue.received = init.received
  return issue
}

// Every vendor spells the same expectation its own way; feedback and stuck-loop detection need one.
const EXPECTED_ALIASES: Readonly<Record<string, string>> = {
  int: 'integer',
  safeint: 'integer',
  float: 'number',
  datetime: 'date-time',
  iso_date_time: 'date-time',
  iso_timestamp: 'date-time',
  iso_date: 'date',
  iso_time: 'time',
  list: 'array',
  tuple: 'array',
  strict_tuple: 'array',
  loose_tuple: 'array',
  strict_object: 'object',
  loose_object: 'object',
  object_with_rest: 'object',
}

/** The canonical name of a type or format: `integer`, `number`, `array`, `date-time`, `date`, ... */
export function canonicalExpected(name: string): string {
  const lower = name.toLowerCase()
  return EXPECTED_ALIASES[lower] ?? lower
}

/** `one of "refund", "reject"` for a set of allowed literals. */
export function oneOf(values: readonly unknown[]): string {
  return `one of ${values.map(renderAllowed).join(', ')}`
}

function renderAllowed(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'bigint') return String(value)
  const json = showInvisible(JSON.stringify(value) ?? String(value))
  return json.length > 60 ? `${cutAt(json, 60)}…` : json
}

/** Removes issues that say the same thing about the same place, keeping the first. */
export function dedupeIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>()
  return issues.filter((issue) => {
    const key = `${issue.code}\u0000${issue.path}\u0000${issue.expected ?? ''}\u0000${issue.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

// Feedback lists what is missing first, then what is wrong, then what to remove.
const RANK: Readonly<Record<IssueCode, number>> = {
  missing_required: 0,
  invalid_type: 1,
  invalid_format: 1,
  invalid_enum: 1,
  other: 1,
  unknown_property: 2,
  forbidden_key: 2,
}

/**
 * The issues in one order whatever validator found them, so every kind of schema gives the same
 * feedback for the same answer: missing fields first, then wrong values (in the validator's order,
 * which follows the schema's properties), then fields to remove; missing and unknown fields
 * shallowest first (TypeBox reports an object's own missing and extra keys before its properties',
 * Zod after). Stable: issues of one rank and depth keep their order.
 *
 * @example
 * orderIssues([unknownNote, wrongAmount]) // [wrongAmount, unknownNote]
 */
export function orderIssues(issues: readonly ValidationIssue[]): readonly ValidationIssue[] {
  if (issues.length < 2) return issues
  // Rank first; missing and unknown fields then by depth (a path is far shorter than a million segments).
  const key = (issue: ValidationIssue): number => {
    const rank = RANK[issue.code] ?? 1
    return rank * 1e6 + (rank === 1 ? 0 : Math.min(issue.segments.length, 1e5))
  }
  return issues
    .map((issue, index) => ({ issue, index, key: key(issue) }))
    .sort((a, b) => a.key - b.key || a.index - b.index)
    .map((entry) => entry.issue)
}
