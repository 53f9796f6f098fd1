import { assertString } from '../../model/argument-checks.ts'
import { optionalModule } from '../../model/optional-module.ts'
import { utf8Length, utf8Prefix } from '../../model/utf8-length.ts'

/** The part of gpt-tokenizer's o200k_base encoding used here. */
interface Encoding {
  encode(text: string, options: { disallowedSpecial: Set<string> }): number[]
  decode(tokens: number[]): string
}

// Special-token text (`<|endoftext|>`) in a model's output is ordinary text here, never a control token.
const AS_TEXT = { disallowedSpecial: new Set<string>() }

// BPE merges within one pre-token cost time quadratic in its length: a model repeating one character
// (a run of 60,000 spaces or `x`s, as a stuck model writes) took 2.7 s to encode whole, blocking the
// event loop. Texts are encoded in pieces of at most this many characters (about 0.5 ms each), cut
// before a space that follows a non-space: o200k_base's pre-tokens never span that edge, so the pieces
// count exactly what the whole text counts. Only a run with no such space (a pre-token longer than a
// piece) is cut where the piece ends, and each such cut counts one token more: BPE on both sides of it
// may differ by one from BPE on the whole run.
const PIECE = 1000

// gpt-tokenizer is an optional peer (its o200k tables are 26 MiB installed and ~130 ms to load): required
// on first use where installed and where the runtime can require synchronously (Node, Bun, Deno), so a
// run without a token cap never pays. Bundlers never see the specifier, so it stays out of bundles,
// which count with the estimate (so does a runtime where it is not available).
const exactEncoding = optionalModule<Encoding>('gpt-tokenizer/encoding/o200k_base')

/**
 * Counts tokens with the o200k_base encoding (GPT-4o and later) when the optional peer
 * `gpt-tokenizer` is installed; for other model families that is itself an estimate (their
 * tokenizers differ, typically by 10–20% on English and code).
 *
 * Without `gpt-tokenizer` (or in a bundle, where it is never loaded) it returns the text's UTF-8 byte
 * length: an upper bound, since every o200k token covers at least one byte, so a limit enforced with
 * it is never exceeded. It over-counts (about 3.3x on real model outputs, which are mostly JSON);
 * `bytes / 3`, the usual rule of thumb, under-counts a quarter of those outputs, since JSON
 * punctuation is token-dense.
 *
 * @example
 * countFeedbackTokens('hello world') // 2 with gpt-tokenizer, 11 without
 */
export function countFeedbackTokens(text: string): number {
  assertString(text, 'countFeedbackTokens: text')
  const exact = exactEncoding()
  if (exact === undefined) return utf8Length(text)
  let count = 0
  for (let at = 0; at < text.length; ) {
    const { end, forced } = pieceEnd(text, at)
    count += exact.encode(text.slice(at, end), AS_TEXT).length + (forced ? 1 : 0)
    at = end
  }
  return count
}

/**
 * Cuts a text to at most `maxTokens` tokens as {@link countFeedbackTokens} counts them (o200k_base
 * with `gpt-tokenizer`, UTF-8 bytes without). Returns the text unchanged when it fits. A cut never
 * ends in half a character.
 *
 * @example
 * cutToTokens('one two three', 2) // { text: 'one two', cut: true } with gpt-tokenizer
 */
export function cutToTokens(text: string, maxTokens: number): { readonly text: string; readonly cut: boolean } {
  const limit = Math.max(0, maxTokens)
  // Every token covers at least one UTF-8 byte, so a text this short always fits.
  if (text.length <= limit && utf8Length(text) <= limit) return { text, cut: false }
  const exact = exactEncoding()
  if (exact === undefined) return { text: text.slice(0, utf8Prefix(text, limit)), cut: true }
  let left = limit
  for (let at = 0; at < text.length; ) {
    const { end, forced } = pieceEnd(text, at)
    const tokens = exact.encode(text.slice(at, end), AS_TEXT)
    const room = forced ? left - 1 : left
    // A token boundary can fall inside a multi-byte character: drop the replacement character left.
    if (tokens.length > room) return { text: text.slice(0, at) + exact.decode(tokens.slice(0, Math.max(0, room))).replace(/\uFFFD+$/, ''), cut: true }
    left = room - tokens.length
    at = end
  }
  return { text, cut: false }
}

/**
 * Where the piece of `text` starting at `at` ends: before the last space within {@link PIECE}
 * characters that follows a non-space (an edge no pre-token spans), else `forced` at {@link PIECE}
 * characters on, never between the halves of a surrogate pair.
 */
function pieceEnd(text: string, at: number): { readonly end: number; readonly forced: boolean } {
  if (text.length - at <= PIECE) return { end: text.length, forced: false }
  for (let i = at + PIECE; i > at + 1; i--) {
    if (text.charCodeAt(i) === 0x20 && !/\s/.test(text.charAt(i - 1))) return { end: i, forced: false }
  }
  const end = at + PIECE
  const last = text.charCodeAt(end - 1)
  return { end: last >= 0xd800 && last <= 0xdbff ? end + 1 : end, forced: true }
}
