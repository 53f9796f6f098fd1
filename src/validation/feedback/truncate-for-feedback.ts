import { cutAt } from '../schema/received.ts'

/** Appended to a text cut by {@link truncateForFeedback}, so the model knows it was cut. */
export const TRUNCATION_MARKER = '[…truncated for length…]'

/**
 * Bounds a text echoed back to the model (its previous answer): unchanged when it fits, else the
 * first `maxChars` characters (never half a surrogate pair) and the marker on its own line.
 */
export function truncateForFeedback(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  return `${cutAt(text, maxChars)}\n${TRUNCATION_MARKER}`
}
