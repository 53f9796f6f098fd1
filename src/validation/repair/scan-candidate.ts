/**
 * What {@link scanCandidate} found in a JSON-like candidate that no repair may guess at: nothing
 * (`ok`), a value that ends before it is complete (an open string, object or array: it may have been
 * cut off), a bare name where a value belongs (`case_id` is a variable, not a literal), or a quote
 * that is ambiguous (`'It's done'`: an apostrophe or the end of the string?).
 */
export type CandidateScan =
  | { readonly kind: 'ok' }
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'bare-name'; readonly name: string }
  | { readonly kind: 'ambiguous-quote'; readonly at: number }

const LITERALS = new Set(['true', 'false', 'null', 'True', 'False', 'None'])
const NAME_START = /[A-Za-z_$]/
const NAME_CHAR = /[\w$]/
// What may follow a closed single-quoted string: anything else means the quote was an apostrophe.
const AFTER_STRING = /[\s,:}\]/]/

/**
 * One linear pass over a JSON-like candidate (double- and single-quoted strings, comments, brackets):
 * whether it ends inside a string or with brackets still open, holds a bare name in a value position
 * (a name followed by `:` is an unquoted key, which repair may quote), or a single-quoted string whose
 * closing quote is followed by a letter (an apostrophe inside it). Repairs are for slips, never for
 * guesses: each of these makes the repair stage refuse the candidate.
 *
 * @example
 * scanCandidate('{"country": "Br') // { kind: 'incomplete' }
 * scanCandidate("{'id': case_id}") // { kind: 'bare-name', name: 'case_id' }
 */
export function scanCandidate(text: string): CandidateScan {
  let depth = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const ch = text[i] as string
    if (ch === '"' || ch === "'") {
      const end = closingQuote(text, i)
      if (end < 0) return { kind: 'incomplete' }
      i = end + 1
      if (ch === "'" && i < n && !AFTER_STRING.test(text[i] as string)) return { kind: 'ambiguous-quote', at: end }
      continue
    }
    if (ch === '/' && text[i + 1] === '/') {
      const eol = text.indexOf('\n', i)
      i = eol < 0 ? n : eol + 1
      continue
    }
    if (ch === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2)
      if (close < 0) return { kind: 'incomplete' }
      i = close + 2
      continue
    }
    if (ch === '{' || ch === '[') depth++
    else if (ch === '}' || ch === ']') depth--
    else if (NAME_START.test(ch) && !NAME_CHAR.test(text[i - 1] ?? ' ')) {
      let j = i + 1
      while (j < n && NAME_CHAR.test(text[j] as string)) j++
      const name = text.slice(i, j)
      let k = j
      while (k < n && /\s/.test(text[k] as string)) k++
      if (k >= n && depth > 0) return { kind: 'incomplete' }
      if (text[k] !== ':' && !LITERALS.has(name)) return { kind: 'bare-name', name }
      i = j
      continue
    }
    i++
  }
  return depth > 0 ? { kind: 'incomplete' } : { kind: 'ok' }
}

/** Index of the quote that closes the string opened at `start`, or -1 when the text ends first. */
function closingQuote(text: string, start: number): number {
  const quote = text[start]
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i]
    if (ch === '\\') i++
    else if (ch === quote) return i
  }
  return -1
}
