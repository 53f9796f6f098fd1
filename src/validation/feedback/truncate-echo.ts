import { cutAt } from '../schema/received.ts'
import { TRUNCATION_MARKER, truncateForFeedback } from './truncate-for-feedback.ts'
import { countFeedbackTokens, cutToTokens } from './truncate-to-tokens.ts'

/** Bounds of a text sent back to the model in a retry tail. */
export interface EchoLimits {
  /** Longest text in characters, marker included (also bounds the tokenizer's work). */
  readonly maxChars: number
  /** Longest text in o200k_base tokens (UTF-8 bytes without `gpt-tokenizer`), marker included; no token cap when absent. */
  readonly maxTokens?: number | undefined
}

const SUFFIX = `\n${TRUNCATION_MARKER}`

/**
 * Bounds a text sent back to the model (the previous output, or a feedback message): cut to
 * `maxChars` characters and to `maxTokens` tokens, with the marker `[…truncated for length…]` on
 * its own line when anything was cut. The result, marker included, never exceeds either bound.
 *
 * @example
 * truncateEcho(longAnswer, { maxChars: 16_000, maxTokens: 4000 })
 */
export function truncateEcho(text: string, limits: EchoLimits): string {
  const byChars = truncateForFeedback(text, limits.maxChars)
  const maxTokens = limits.maxTokens
  if (maxTokens === undefined || cutToTokens(byChars, maxTokens).cut === false) return byChars
  const maxChars = Math.max(0, Math.floor(limits.maxChars))
  // A head and the marker fit `maxChars` only when the marker alone does.
  if (maxChars >= SUFFIX.length) {
    // The head is cut from a text short enough that head and marker always fit `maxChars`.
    const base = cutAt(text, maxChars - SUFFIX.length)
    const suffixTokens = countFeedbackTokens(SUFFIX)
    // Counting the parts apart can differ from counting the joined text by a token: shave until it fits.
    for (let room = maxTokens - suffixTokens, tries = 0; room > 0 && tries < 8; room--, tries++) {
      const joined = `${cutToTokens(base, room).text}${SUFFIX}`
      if (countFeedbackTokens(joined) <= maxTokens) return joined
    }
  }
  // Bounds below the marker's own size: as much of the marker as fits both (it is 24 characters).
  for (let n = Math.min(TRUNCATION_MARKER.length, maxChars); n > 0; n--) {
    const head = cutAt(TRUNCATION_MARKER, n)
    if (countFeedbackTokens(head) <= maxTokens) return head
  }
  return ''
}
