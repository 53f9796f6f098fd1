import { mayHoldForbiddenKey } from './forbidden-keys.ts'
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_LENGTH } from './json-limits.ts'
import { findDuplicateKey, keyCensus, mayRepeatKey } from './duplicate-keys.ts'
import { findExcessiveNesting } from './nesting-depth.ts'
import { JsonSyntaxFailure, parseJsonQuietly } from './parse-json-quietly.ts'

/** What {@link parseJsonFast} answers when the text needs the full extraction path. */
export const NOT_PARSED: unique symbol = Symbol('reliability-gate.notParsed')

const OPEN_BRACE = 123
const OPEN_BRACKET = 91

/**
 * The whole text as a JSON object or array, when that is certain and cheap: within the default
 * length and depth limits, and holding nothing the forbidden-key check would have to look at
 * (`__proto__`, `constructor`, `\u` escapes), with no number read as `Infinity` or as another integer, and no key written twice
 * with different values. Anything else, a text that does not parse included,
 * is {@link NOT_PARSED}: the caller then takes the full path (`extractJson`), which explains why.
 *
 * `keysCheckedBySchema`: the value will be accepted only by a schema that admits declared keys only
 * (`CompiledSchema.declaredKeysOnly`), which refuses any forbidden key itself, so the text is not
 * scanned for one. A caller whose schema then refuses the value must pass it through
 * {@link keptAfterFailedTest} before handing it on as an already-parsed value.
 */
export function parseJsonFast(text: string, keysCheckedBySchema = false): unknown {
  const n = text.length
  if (n === 0 || n > DEFAULT_MAX_LENGTH) return NOT_PARSED
  let i = 0
  let c = text.charCodeAt(0)
  // JSON.parse itself skips the same whitespace (space, tab, LF, CR).
  while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++i)
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) return NOT_PARSED
  if (n > DEFAULT_MAX_DEPTH && findExcessiveNesting(text, DEFAULT_MAX_DEPTH) >= 0) return NOT_PARSED
  if (!keysCheckedBySchema && mayHoldForbiddenKey(text)) return NOT_PARSED
  const value = parseJsonQuietly(text)
  if (value instanceof JsonSyntaxFailure) return NOT_PARSED
  // A number read as Infinity, or a key written twice with different values: the full path explains it.
  // One walk of the value counts its keys and finds an Infinity; the text is read again only when it
  // has more key ends than the value has keys.
  const keys = keyCensus(value)
  // A number past ±2^53 or read as ±Infinity (keys < 0) takes the full path, which finds an integer read as another.
  if (keys < 0 || (mayRepeatKey(text, keys) && findDuplicateKey(text, value) !== undefined)) return NOT_PARSED
  return value
}

/**
 * What {@link parseJsonFast} gave, once the schema refused it: the value, to be checked again without
 * parsing, unless it was parsed without the key scan and its text may hold a forbidden key (the full
 * path then finds and reports the key).
 */
export function keptAfterFailedTest(parsed: unknown, text: string, keysCheckedBySchema: boolean): unknown {
  return keysCheckedBySchema && parsed !== NOT_PARSED && mayHoldForbiddenKey(text) ? NOT_PARSED : parsed
}
