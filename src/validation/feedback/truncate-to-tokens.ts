import { createRequire } from 'node:module'

type O200k = typeof import('gpt-tokenizer/encoding/o200k_base')

// Special-token text (`<|endoftext|>`) in a model's output is ordinary text here, never a control token.
const AS_TEXT = { disallowedSpecial: new Set<string>() }

// The o200k tables take ~130 ms to load: loaded on first use, so a run without a token cap never pays.
let o200k: O200k | undefined
function tokenizer(): O200k {
  return (o200k ??= createRequire(import.meta.url)('gpt-tokenizer/cjs/encoding/o200k_base') as O200k)
}

/**
 * Counts tokens with the o200k_base encoding (GPT-4o and later, via `gpt-tokenizer`). For other
 * model families it is an estimate: their tokenizers differ, typically by 10–20% on English and code.
 *
 * @example
 * countFeedbackTokens('hello world') // 2
 */
export function countFeedbackTokens(text: string): number {
  return tokenizer().encode(text, AS_TEXT).length
}

/**
 * Cuts a text to at most `maxTokens` o200k_base tokens (see {@link countFeedbackTokens} for other
 * models). Returns the text unchanged when it fits. A cut never ends in half a character.
 *
 * @example
 * cutToTokens('one two three', 2) // { text: 'one two', cut: true }
 */
export function cutToTokens(text: string, maxTokens: number): { readonly text: string; readonly cut: boolean } {
  // Every token covers at least one UTF-8 byte, so a text this short always fits.
  if (text.length <= maxTokens && Buffer.byteLength(text, 'utf8') <= maxTokens) return { text, cut: false }
  const { encode, decode } = tokenizer()
  const tokens = encode(text, AS_TEXT)
  if (tokens.length <= maxTokens) return { text, cut: false }
  // A token boundary can fall inside a multi-byte character: drop the replacement character left.
  return { text: decode(tokens.slice(0, Math.max(0, maxTokens))).replace(/\uFFFD+$/, ''), cut: true }
}
