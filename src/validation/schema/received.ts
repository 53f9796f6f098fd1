import { JsonSyntaxFailure, parseJsonQuietly } from '../json/parse-json-quietly.ts'
import { showInvisible } from './visible-text.ts'

const MAX_QUOTED = 40
// For these expectations the type name says enough; for any other (number, boolean, a format) the
// text of a wrong string helps the model see its mistake.
const NOT_QUOTED = new Set(['string', 'array', 'object'])

/** The JSON type name of a value as the feedback prose names it: `null`, `array`, `object`, ... */
export function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'bigint') return 'number'
  return typeof value
}

/** A string as a JSON literal, cut to 40 characters so feedback stays short. */
export function quoteString(value: string): string {
  const cut = value.length > MAX_QUOTED ? `${cutAt(value, MAX_QUOTED)}…` : value
  return showInvisible(JSON.stringify(cut))
}

/**
 * Renders what was found for a type or format issue. A string given where a number, boolean,
 * date or formatted string was expected is quoted (the model usually wrote `"USD 50"` for a
 * number); otherwise the type name says enough.
 */
export function renderReceived(value: unknown, expected: string | undefined): string {
  if (typeof value === 'string' && expected !== undefined && !NOT_QUOTED.has(expected)) {
    return quoteString(value)
  }
  // `"{\"a\": 1}"`: the value written as JSON, then that JSON quoted as a string (a common slip).
  if (typeof value === 'string' && (expected === 'object' || expected === 'array') && holdsJson(value, expected)) {
    return `a string holding the ${expected} as JSON text: write the ${expected} itself, not quoted as a string`
  }
  return typeName(value)
}

/** Whether `text` is the JSON text of a value of type `expected` (an object, or an array). */
function holdsJson(text: string, expected: 'object' | 'array'): boolean {
  const start = text.trimStart().charCodeAt(0)
  if (start !== (expected === 'object' ? 123 : 91)) return false
  const inner = parseJsonQuietly(text)
  return !(inner instanceof JsonSyntaxFailure) && typeName(inner) === expected
}

/** Renders a value found where one of a set of literals was expected. */
export function renderLiteral(value: unknown): string {
  if (typeof value === 'string') return quoteString(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  return typeName(value)
}

/** Cuts a string to at most `max` UTF-16 units without splitting a surrogate pair. */
export function cutAt(text: string, max: number): string {
  if (text.length <= max) return text
  let end = Math.max(0, max)
  const code = text.charCodeAt(end - 1)
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1
  return text.slice(0, end)
}
