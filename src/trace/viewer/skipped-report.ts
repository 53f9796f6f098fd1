import type { SkippedLine } from './parse-trace.ts'

/** How many skipped lines the terminal names; the rest are counted. */
export const MAX_NAMED_SKIPS = 10
const MAX_REASON = 160

/**
 * The terminal's note on the trace lines the viewer could not use (the page lists them too), or
 * `undefined` when none was skipped: their numbers and reasons, at most {@link MAX_NAMED_SKIPS} of
 * them, each reason cut and escaped (a reason quotes the line, and a line may hold terminal escapes).
 *
 * @example
 * skippedReport('trace.jsonl', [{ line: 3, reason: 'no "type"' }])
 * // 'reliability-gate: skipped 1 malformed line of "trace.jsonl" (line 3: no "type")'
 */
export function skippedReport(file: string, skipped: readonly SkippedLine[]): string | undefined {
  if (skipped.length === 0) return undefined
  const named = skipped.slice(0, MAX_NAMED_SKIPS).map((s) => `  line ${s.line}: ${escaped(s.reason, MAX_REASON)}`)
  const more = skipped.length > MAX_NAMED_SKIPS ? [`  … and ${skipped.length - MAX_NAMED_SKIPS} more`] : []
  const lines = skipped.length === 1 ? 'line' : 'lines'
  return [`reliability-gate: skipped ${skipped.length} malformed ${lines} of ${escaped(JSON.stringify(file), 300)}:`, ...named, ...more].join('\n')
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

// Control characters (ESC, CR, NUL, C1, line separators) written as \u escapes: one reason, one line, no terminal codes.
function escaped(text: string, max: number): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text
  return cut.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
