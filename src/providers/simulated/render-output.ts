import type { StopReason } from '../../model/response.ts'

/** The text of an answer and why it stopped. */
export interface RenderedOutput {
  readonly text: string
  readonly stopReason: StopReason
}

const PROSE_BEFORE = 'Sure! Here is the result you asked for:\n\n```json\n'
const PROSE_AFTER = '\n```\n\nLet me know if you need anything else.'

/** Writes `value` as the model would: pretty JSON, optionally fenced in prose and/or cut short. */
export function renderOutput(value: unknown, format: { readonly fenced: boolean; readonly truncated: boolean }): RenderedOutput {
  const json = JSON.stringify(value, null, 2) ?? 'null'
  const text = format.fenced ? `${PROSE_BEFORE}${json}${PROSE_AFTER}` : json
  if (!format.truncated) return { text, stopReason: 'end' }
  // Cut in the middle of the JSON itself (not of the prose), as a token limit would.
  const cut = (format.fenced ? PROSE_BEFORE.length : 0) + Math.max(1, Math.floor(json.length / 2))
  return { text: text.slice(0, cut), stopReason: 'max_tokens' }
}
