import type { IssueCode, ValidationIssue } from '../issue.ts'
import { renderPath, type PathSegment } from './path.ts'
import { cutAt } from './received.ts'
import { showInvisible } from './visible-text.ts'

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
