import { assertString } from '../../model/argument-checks.ts'
import { cutAt } from '../schema/received.ts'

/** Ends a text cut to fit the retry tail, so the model knows it was cut. */
export const TRUNCATION_MARKER = '[…truncated for length…]'

const SUFFIX = `\n${TRUNCATION_MARKER}`

/**
 * Bounds a text sent back to the model: unchanged when it fits in `maxChars`, else its head (never
 * half a surrogate pair) and the marker on its own line, the whole at most `maxChars` characters.
 * Below the marker's own length only a prefix of the marker fits: the bound always holds.
 *
 * @example
 * truncateForFeedback('x'.repeat(100), 40) // 'xxxxxxxxxxxxxx\n[…truncated for length…]' (40 characters)
 */
export function truncateForFeedback(text: string, maxChars: number): string {
  assertString(text, 'truncateForFeedback: text')
  const max = Math.max(0, Math.floor(maxChars))
  if (text.length <= max) return text
  if (max <= SUFFIX.length) return cutAt(TRUNCATION_MARKER, max)
  return `${cutAt(text, max - SUFFIX.length)}${SUFFIX}`
}
