import type { ValidationIssue } from '../issue.ts'
import type { SchemaResult } from './compiled-schema.ts'
import { makeIssue } from './make-issue.ts'
import { vendorIssues } from './vendor-issues.ts'

/** A rejection, never with an empty issue list (feedback needs at least one line). */
export function rejected<T>(issues: readonly ValidationIssue[], fallbackMessage: string): SchemaResult<T> {
  return { ok: false, issues: issues.length > 0 ? issues : [makeIssue({ segments: [], code: 'other', message: fallbackMessage })] }
}

/**
 * Turns an error thrown by a validator into a rejection: a ZodError-like error (an `issues`
 * array) keeps its issues, anything else becomes one root issue with the error's message.
 */
export function rejectedByThrow<T>(error: unknown, value: unknown): SchemaResult<T> {
  const message = error instanceof Error ? error.message : String(error)
  const issues =
    typeof error === 'object' && error !== null && Array.isArray((error as { issues?: unknown }).issues)
      ? vendorIssues((error as { issues: unknown[] }).issues, value)
      : []
  return rejected(issues, message === '' ? 'the value was rejected' : message)
}
