import { cutAt } from '../schema/received.ts'
import { TRUNCATION_MARKER } from './truncate-for-feedback.ts'
import { cutToTokens } from './truncate-to-tokens.ts'

/** Bounds of the previous output echoed back to the model. */
export interface EchoLimits {
  /** Longest echo in characters (also bounds the tokenizer's work). */
  readonly maxChars: number
  /** Longest echo in o200k_base tokens; no token cap when absent. */
  readonly maxTokens?: number | undefined
}

/**
 * Bounds the previous output echoed in a retry: cut to `maxChars` characters, then to `maxTokens`
 * tokens, with the marker `[…truncated for length…]` on its own line when anything was cut.
 *
 * @example
 * truncateEcho(longAnswer, { maxChars: 16_000, maxTokens: 4000 })
 */
export function truncateEcho(text: string, limits: EchoLimits): string {
  const byChars = text.length > limits.maxChars ? cutAt(text, limits.maxChars) : text
  const byTokens = limits.maxTokens === undefined ? { text: byChars, cut: false } : cutToTokens(byChars, limits.maxTokens)
  return byChars === text && !byTokens.cut ? text : `${byTokens.text}\n${TRUNCATION_MARKER}`
}
