import { errorName, messageOf } from '../../model/message-of.ts'
import type { ValidationIssue } from '../issue.ts'
import type { SchemaResult } from './compiled-schema.ts'
import { makeIssue, orderIssues } from './make-issue.ts'
import { vendorIssues } from './vendor-issues.ts'

/** Longest description of a thrown value kept in an issue (it is fed back to the model). */
export const MAX_THROWN_MESSAGE = 300

/**
 * A rejection, never with an empty issue list (feedback needs at least one line), its issues in the
 * order every schema kind gives them (see `orderIssues`).
 */
export function rejected<T>(issues: readonly ValidationIssue[], fallbackMessage: string): SchemaResult<T> {
  return { ok: false, issues: issues.length > 0 ? orderIssues(issues) : [makeIssue({ segments: [], code: 'other', message: fallbackMessage })] }
}

/**
 * Turns anything a validator throws into a rejection, never throwing itself: a ZodError-like error
 * (an `issues` array) keeps its issues, anything else (an object without a prototype, a Symbol, an
 * object whose `toString` or `message` getter throws, a Proxy that throws on every trap) becomes one
 * root issue with a safe one-line description of what was thrown.
 */
export function rejectedByThrow<T>(error: unknown, value: unknown): SchemaResult<T> {
  const message = describeThrown(error)
  let issues: ValidationIssue[] = []
  try {
    const list = typeof error === 'object' && error !== null ? (error as { issues?: unknown }).issues : undefined
    if (Array.isArray(list)) issues = vendorIssues(list, value)
  } catch {
    issues = []
  }
  return rejected(issues, message === '' ? 'the value was rejected' : message)
}

/** What was thrown, on one line and bounded: an error's message, else its string form, else a description. */
function describeThrown(thrown: unknown): string {
  if (thrown === undefined) return ''
  let text = messageOf(thrown)
  if (text === '[object Object]') text = 'a thrown object without a message'
  else if (text.startsWith('an unreadable ')) {
    const name = errorName(thrown)
    if (name !== undefined) text = `${name} whose message cannot be read`
  }
  const line = text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ').trim()
  return line.length > MAX_THROWN_MESSAGE ? `${line.slice(0, MAX_THROWN_MESSAGE - 1)}…` : line
}
