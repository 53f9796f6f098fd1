/** Longest text a log entry shows of one value the model or a user wrote (a tool name, an agent name). */
export const MAX_LOG_VALUE = 200

/** Longest log line the agent writes; longer ones are cut with `…`. */
export const MAX_LOG_LINE = 4_000

// What cannot stand bare in a `key=value` line: whitespace, quotes, `=`, backslashes, and every
// control, format (bidi overrides, zero-width), private-use, unassigned or lone surrogate character.
const NOT_BARE = /[\s"=\\\p{C}]/u
// What JSON.stringify leaves raw but a log reader may take for a line break or hide: DEL and C1
// controls (NEL), format characters, line and paragraph separators, private-use and unassigned ones.
const STILL_RAW = /[\u007f-\u009f\u2028\u2029\p{Cf}\p{Co}\p{Cn}]/gu
// Raw characters that would break one log line in two or hide part of it.
const LINE_BREAKING = /[\p{Cc}\u2028\u2029\p{Cf}]/gu
const HAS_LINE_BREAKING = /[\p{Cc}\u2028\u2029\p{Cf}]/u

/**
 * A value as a text log line shows it, logfmt style: bare when it is a plain token; otherwise
 * quoted with JSON escapes, so a newline in a model-invented tool name cannot start a forged line
 * and a space or `=` cannot forge a field; cut at `max` characters with `…` first.
 *
 * @example
 * logValue('create_event')          // 'create_event'
 * logValue('x\nvalidation_retry…')  // '"x\\nvalidation_retry…"'
 */
export function logValue(value: string, max = MAX_LOG_VALUE): string {
  const cut = logField(value, max)
  if (cut !== '' && !NOT_BARE.test(cut)) return cut
  return JSON.stringify(cut).replace(STILL_RAW, escapeUnits)
}

/** A value as a structured log entry holds it: cut at `max` characters with `…` (the logger's serialiser escapes it). */
export function logField(value: string, max = MAX_LOG_VALUE): string {
  if (value.length <= max) return value
  // Never split a surrogate pair: half of one is not text.
  const end = isHighSurrogate(value.charCodeAt(max - 1)) ? max - 1 : max
  return `${value.slice(0, end)}…`
}

/**
 * A whole line as the agent hands it to a logger: one line, whatever its parts held (raw control,
 * line-separator and format characters escaped as `\n`, `\r` or `\uXXXX`), cut at {@link MAX_LOG_LINE}.
 */
export function logLine(line: string): string {
  const bounded = logField(line, MAX_LOG_LINE)
  return HAS_LINE_BREAKING.test(bounded) ? bounded.replace(LINE_BREAKING, escapeUnits) : bounded
}

function escapeUnits(c: string): string {
  if (c === '\n') return '\\n'
  if (c === '\r') return '\\r'
  let out = ''
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`
  return out
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
