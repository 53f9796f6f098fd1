/** Longest name-like attribute value (a tool, model, agent or rule name, a metadata value), in characters. */
export const MAX_NAME_CHARS = 256
/** Longest content attribute value (messages, raw outputs, tool arguments and results), in characters. */
export const MAX_CONTENT_CHARS = 16_384

// C0 and C1 controls and the line and paragraph separators: a name never spans lines.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/**
 * A name-like attribute value (or the variable part of a span name) as OpenTelemetry receives it:
 * control characters and newlines escaped (`\n`, `\u0000`), cut at `max` characters with `…`.
 */
export function boundedName(value: string, max = MAX_NAME_CHARS): string {
  const escaped = value.replace(CONTROL, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
  return escaped.length > max ? `${escaped.slice(0, max - 1)}…` : escaped
}

/** A content attribute value, cut at {@link MAX_CONTENT_CHARS} with a marker saying how much was left out. */
export function boundedContent(value: string): string {
  return value.length > MAX_CONTENT_CHARS ? `${value.slice(0, MAX_CONTENT_CHARS)}…[${value.length - MAX_CONTENT_CHARS} more characters]` : value
}
