import type { ValidationIssue } from '../issue.ts'
import { findForbiddenKey, forbiddenKeyIssue, mayHoldForbiddenKey } from './forbidden-keys.ts'
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_LENGTH, type JsonLimits } from './json-limits.ts'
import { duplicateKeyIssue, findDuplicateKey } from './duplicate-keys.ts'
import { findExcessiveNesting } from './nesting-depth.ts'
import { findInexactInteger, inexactIntegerMessage } from './inexact-integer.ts'
import { findNonFiniteNumber, nonFiniteMessage, nonJsonNumberIn } from './non-finite.ts'
import { JsonSyntaxFailure, parseJsonQuietly } from './parse-json-quietly.ts'

/**
 * Why a text was refused: too long, too deep, not JSON, holding a prototype-polluting key, a number
 * too large for JSON (`1e999`, read as `Infinity`), an integer a JSON number cannot hold exactly
 * (`12345678901234567890`, read as `12345678901234567000`), or a key written twice in one object with
 * different values (`JSON.parse` would keep the last silently).
 */
export type JsonRefusal = 'too-long' | 'too-deep' | 'syntax' | 'forbidden-key' | 'non-finite' | 'inexact-integer' | 'duplicate-key'

/** The verdict of {@link parseJsonSafe}. */
export type JsonParseResult =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false
      readonly message: string
      readonly position?: number
      readonly reason: JsonRefusal
      /** For a forbidden key: the issue to show the model. */
      readonly issue?: ValidationIssue
    }

/**
 * `JSON.parse` for untrusted text: never overflows the stack, never pollutes a prototype, never
 * throws. Checks the length, then the nesting depth (a linear pre-scan), then parses, then refuses
 * forbidden keys (`__proto__`, and `constructor` holding a `prototype`: see `findForbiddenKey`), numbers
 * too large for JSON (`1e999`: see `findNonFiniteNumber`), integers read as another number
 * (see `findInexactInteger`) and keys written twice in one object with
 * different values (see `findDuplicateKey`).
 *
 * @example
 * parseJsonSafe('{"a": 1}') // { ok: true, value: { a: 1 } }
 */
export function parseJsonSafe(text: string, options?: JsonLimits): JsonParseResult {
  const maxLength = options?.maxLength ?? DEFAULT_MAX_LENGTH
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH
  if (text.length > maxLength) {
    return { ok: false, reason: 'too-long', message: `JSON text is too long (${text.length} characters, limit ${maxLength})` }
  }
  // Nesting deeper than maxDepth needs more than maxDepth characters: short answers skip the scan.
  const deepAt = text.length > maxDepth ? findExcessiveNesting(text, maxDepth) : -1
  if (deepAt >= 0) {
    return { ok: false, reason: 'too-deep', position: deepAt, message: `JSON nesting deeper than ${maxDepth} levels at position ${deepAt}` }
  }
  const value = parseJsonQuietly(text)
  if (value instanceof JsonSyntaxFailure) {
    const error = value.error
    const detail = error instanceof Error ? error.message : String(error)
    const position = /at position (\d+)/.exec(detail)?.[1]
    // `NaN` or `Infinity` written as a number: say so, rather than "Unexpected token 'N'".
    const nonJson = nonJsonNumberIn(text)
    const base = { ok: false, reason: 'syntax', message: `not valid JSON: ${nonJson ?? detail}` } as const
    return position === undefined ? base : { ...base, position: Number(position) }
  }
  if (mayHoldForbiddenKey(text)) {
    const forbidden = findForbiddenKey(value)
    if (forbidden !== undefined) {
      const issue = forbiddenKeyIssue(forbidden)
      return { ok: false, reason: 'forbidden-key', message: issue.message, issue }
    }
  }
  const nonFinite = findNonFiniteNumber(text, value)
  if (nonFinite !== undefined) return { ok: false, reason: 'non-finite', position: nonFinite.at, message: nonFiniteMessage(nonFinite) }
  const inexact = findInexactInteger(text)
  if (inexact !== undefined) return { ok: false, reason: 'inexact-integer', position: inexact.at, message: inexactIntegerMessage(inexact) }
  const duplicate = findDuplicateKey(text, value)
  if (duplicate !== undefined) {
    const issue = duplicateKeyIssue(duplicate)
    return { ok: false, reason: 'duplicate-key', message: `the key '${issue.path}' is ${issue.message}`, issue }
  }
  return { ok: true, value }
}
