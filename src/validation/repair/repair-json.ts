import { jsonrepair } from 'jsonrepair'
import type { JsonLimits } from '../json/json-limits.ts'
import { type JsonRefusal, parseJsonSafe } from '../json/parse-json-safe.ts'
import { JsonSyntaxFailure, parseJsonQuietly } from '../json/parse-json-quietly.ts'
import { detectRepairs, type RepairKind } from './detect-repairs.ts'
import { tuplesToArrays } from './python-tuples.ts'
import { scanCandidate } from './scan-candidate.ts'

/** The verdict of {@link repairJson}. */
export type RepairJsonResult =
  | { readonly ok: true; readonly value: unknown; readonly repairs: readonly RepairKind[] }
  | { readonly ok: false; readonly message: string; readonly incomplete?: true; readonly guess?: true }

/** Options of {@link repairJson}. */
export interface RepairJsonOptions {
  /**
   * The candidate's block was ended by the model (a closing tool-call tag or fence follows it), so a
   * bracket left open is a slip to close, not a cut. Otherwise a candidate that ends inside a string
   * or with brackets open is refused: it may have been cut off, and closing it would invent its end.
   * @default false
   */
  readonly blockEnded?: boolean
}

/** Said of a value that ends before it is complete. */
export const INCOMPLETE = 'the JSON value ends before it is complete (an unclosed string, object or array): it was probably cut off'

/**
 * Repairs one JSON-like candidate with `jsonrepair` (comments, trailing commas, single quotes,
 * typographic quotes (`“key”: “text”`), Python `None/True/False`, unquoted keys, brackets left open before the end of a block the model
 * closed) and parses the
 * result with the same safety checks as any model output. Only an object or an array is accepted: a
 * repairer turns any prose into a JSON string, which would be a false repair. A value that elides
 * content with an ellipsis (`[1, 2, ...]`, `{"entries": [...`) is refused: `jsonrepair` would drop
 * the ellipsis and return a value the model never gave. Never a guess (see `scanCandidate`): a value
 * that ends inside a string or with brackets open is refused as cut off (unless `blockEnded`), a bare
 * name (`case_id`) is not a literal, and an apostrophe in a single-quoted string is ambiguous.
 *
 * @example
 * repairJson("{'ok': True,}") // { ok: true, value: { ok: true }, repairs: ['single-quotes', 'trailing-comma', 'python-literals'] }
 */
export function repairJson(candidate: string, limits?: JsonLimits, options: RepairJsonOptions = {}): RepairJsonResult {
  const trimmed = candidate.trim()
  if (!/^[{[]/.test(trimmed)) return { ok: false, message: 'not a JSON object or array' }
  const scan = scanCandidate(trimmed)
  if (scan.kind === 'incomplete' && options.blockEnded !== true) return { ok: false, message: INCOMPLETE, incomplete: true }
  if (scan.kind === 'bare-name')
    return { ok: false, guess: true, message: `${JSON.stringify(scan.name)} is a bare name, not a JSON value: quote it if it is text` }
  // The parse error already names the literal (see `nonJsonNumberIn`): refused, never turned into a string.
  if (scan.kind === 'non-finite') return { ok: false, message: `${scan.name} is not a JSON number` }
  if (scan.kind === 'inner-quote') {
    return {
      ok: false,
      guess: true,
      message: `a quote inside a string is not escaped (near character ${scan.at}), so where the string ends is unclear: write quotes inside strings as \\"`,
    }
  }
  if (scan.kind === 'no-value') return { ok: false, guess: true, message: `${scan.what} (near character ${scan.at}): a repair would invent a value` }
  if (scan.kind === 'ambiguous-quote') {
    return { ok: false, guess: true, message: `a quote inside a single-quoted string (character ${scan.at}) is ambiguous: use double quotes around strings` }
  }
  // `[1, 2, ...]` means the model left values out: dropping the ellipsis would invent a shorter value.
  if (elidesContent(trimmed)) return { ok: false, message: 'the value elides content with an ellipsis (...), which cannot be recovered' }
  // A Python list of `(name, {args})` tuples: its parentheses are brackets (a tuple is a JSON array).
  // `"He said "yes" to it"`: the inner quotes are escaped as read, so the repairer never reads them otherwise.
  // `“key”: “text”`: the typographic quotes written as JSON's (one code unit each: the offsets hold), before any escape.
  const curly = scan.kind === 'ok' ? scan.curlyQuotes : undefined
  const straight = curly === undefined ? trimmed : straightenAt(trimmed, curly)
  const escaped = scan.kind === 'ok' && scan.innerQuotes !== undefined ? escapeAt(straight, scan.innerQuotes) : straight
  const untupled = tuplesToArrays(escaped)
  if (untupled === 'code') return { ok: false, message: 'a parenthesis outside strings that is not a tuple: this is code, not a JSON value' }
  const rewritten = untupled === 'none' ? escaped : untupled
  let repaired: string
  try {
    // Quotes rewritten, the text may be JSON already: the repairer is not asked to read it again (it refuses some JSON, `{"": "{"}`).
    repaired = rewritten !== trimmed && !(parseJsonQuietly(rewritten) instanceof JsonSyntaxFailure) ? rewritten : jsonrepair(rewritten)
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
  const parsed = parseJsonSafe(repaired, limits)
  // Repaired, the text says something JSON cannot hold as written (`1e999`, a key twice, a long integer): said to the model.
  if (!parsed.ok) return UNSAYABLE.has(parsed.reason) ? { ok: false, guess: true, message: parsed.message } : { ok: false, message: parsed.message }
  if (typeof parsed.value !== 'object' || parsed.value === null) return { ok: false, message: 'the repair did not yield an object or array' }
  if (repaired === trimmed) return { ok: true, value: parsed.value, repairs: [] }
  const repairs = detectRepairs(escaped)
  if (untupled !== 'none') repairs.push('python-tuples')
  if (curly !== undefined) repairs.push('typographic-quotes')
  if (scan.kind === 'ok' && scan.innerQuotes !== undefined) repairs.push('inner-quotes')
  return { ok: true, value: parsed.value, repairs: repairs.length > 0 ? repairs : ['other-syntax'] }
}

const BACKSLASH = 92
const UNSAYABLE: ReadonlySet<JsonRefusal> = new Set(['non-finite', 'inexact-integer', 'duplicate-key'])

/** The text with a backslash before each of the given offsets (sorted). */
function escapeAt(text: string, offsets: readonly number[]): string {
  const parts: string[] = []
  let from = 0
  for (const at of offsets) {
    parts.push(text.slice(from, at), '\\')
    from = at
  }
  parts.push(text.slice(from))
  return parts.join('')
}

/** The text with a straight double quote at each of the given offsets. */
function straightenAt(text: string, offsets: readonly number[]): string {
  const chars = text.split('')
  for (const at of offsets) chars[at] = '"'
  return chars.join('')
}

/** Whether `...` or `…` appears outside strings (double-, single- or typographically quoted): the model wrote an ellipsis in place of values. */
function elidesContent(text: string): boolean {
  let quote = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (quote !== 0) {
      if (code === BACKSLASH) i++
      else if (code === quote) quote = 0
      continue
    }
    if (code === 34 || code === 39) quote = code
    else if (code === 0x201c || code === 0x2018)
      quote = code + 1 // `“…”`, `‘…’`: closed by the next code point
    else if (code === 0x2026 || (code === 46 && text.startsWith('...', i))) return true
  }
  return false
}
