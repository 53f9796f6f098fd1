/**
 * What {@link scanCandidate} found in a JSON-like candidate that no repair may guess at: nothing
 * (`ok`), a value that ends before it is complete (an open string, object or array: it may have been
 * cut off), a bare name where a value belongs (`case_id` is a variable, not a literal), or a quote
 * that is ambiguous (`'It's done'`: an apostrophe or the end of the string?).
 */
export type CandidateScan =
  /**
   * `innerQuotes`: offsets of unescaped quotes inside strings, read unambiguously (to escape);
   * `curlyQuotes`: offsets of the typographic quotes around strings (`“…”`, `‘…’`), to write as `"`.
   */
  | { readonly kind: 'ok'; readonly innerQuotes?: readonly number[]; readonly curlyQuotes?: readonly number[] }
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'bare-name'; readonly name: string }
  | { readonly kind: 'ambiguous-quote'; readonly at: number }
  /** A double-quoted string holding an unescaped quote whose reading is not certain (`"said "yes", then left"`). */
  | { readonly kind: 'inner-quote'; readonly at: number }
  /** `NaN` or `Infinity` where a value belongs: not a JSON number. */
  | { readonly kind: 'non-finite'; readonly name: string }
  /**
   * Something a repairer would read as a value the model never wrote: a backslash in a string before a
   * character no JSON escape starts with (`"C:\Users"` would lose its backslashes), a number with no
   * digits or a cut exponent (`-`, `.`, `1e+`, read as `0` or `1`), a key with no value (`"a": ,`,
   * read as `null`), or a string followed at once by a quote (`"""x"""` would invent a key `x`).
   */
  | { readonly kind: 'no-value'; readonly at: number; readonly what: string }

// Typographic quotes: a string opened with a left-hand mark is closed by its right-hand one.
const LEFT_DOUBLE = '\u201c'
const RIGHT_DOUBLE = '\u201d'
const LEFT_SINGLE = '\u2018'
const RIGHT_SINGLE = '\u2019'
const LITERALS = new Set(['true', 'false', 'null', 'True', 'False', 'None'])
const NAME_START = /[A-Za-z_$]/
const NAME_CHAR = /[\w$]/
// What may follow a closed single-quoted string: anything else means the quote was an apostrophe.
const AFTER_STRING = /[\s,:}\]/]/
// A word begins right after an opening quote.
const WORD_START = /^[\p{L}\p{N}]/u
// After the quote that closes a quotation inside a string: more of the string (a space and a word, or
// sentence punctuation), not what may follow a string.
const STRING_GOES_ON = /^(?: [\p{L}\p{N}]|[.!?;'’)-])/u
// The rest of a string cut by an inner quote: words and punctuation on the same line, then a quote.
const STRING_REST = /^[\p{L}\p{N} \t.,;!?'’()-]{0,160}"\s*[,}\]]/u

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
  let innerQuotes: number[] | undefined
  let curlyQuotes: number[] | undefined
  // The first value a repairer would invent; said only if the candidate is not cut (a cut says more).
  let noValue: CandidateScan | undefined
  while (i < n) {
    const ch = text[i] as string
    if (ch === LEFT_DOUBLE || ch === LEFT_SINGLE) {
      // `“key”: “text”`: typographic quotes around a string, closed by their own right-hand mark (an
      // apostrophe `’` or a straight quote inside `“…”` is text); repair writes them as JSON's quotes
      // itself (a repairer would end the string at a straight quote inside and invent a key from the rest).
      const end = text.indexOf(ch === LEFT_DOUBLE ? RIGHT_DOUBLE : RIGHT_SINGLE, i + 1)
      if (end < 0) return { kind: 'incomplete' }
      noValue ??= badEscape(text, i, end)
      ;(curlyQuotes ??= []).push(i, end)
      // A straight quote inside is text: escaped when the marks become JSON's quotes.
      for (let q = text.indexOf('"', i + 1); q >= 0 && q < end; q = text.indexOf('"', q + 1)) if (!escapedAt(text, q)) (innerQuotes ??= []).push(q)
      i = end + 1
      // `‘It’s’`: the mark that closed it was an apostrophe, so where the string ends is a guess.
      if (i < n && !AFTER_STRING.test(text[i] as string)) return { kind: 'ambiguous-quote', at: end }
      continue
    }
    if (ch === '"' || ch === "'") {
      let end = closingQuote(text, i)
      if (end < 0) return { kind: 'incomplete' }
      // `"He said "yes" to it"`: a quote after a space and before a word opens a quotation inside the
      // string; the quote that closes it must be followed by more of the string (a space and a word,
      // or punctuation), never by what may end a string (`,` `}` `]` `:`), or the reading is a guess.
      while (ch === '"' && /\s/.test(text[end - 1] as string) && WORD_START.test(text[end + 1] ?? '')) {
        const close = closingQuote(text, end)
        if (close < 0) return { kind: 'incomplete' }
        if (!STRING_GOES_ON.test(text.slice(close + 1, close + 3))) return { kind: 'inner-quote', at: end }
        innerQuotes ??= []
        innerQuotes.push(end, close)
        end = closingQuote(text, close)
        if (end < 0) return { kind: 'incomplete' }
      }
      noValue ??= badEscape(text, i, end)
      i = end + 1
      if (ch === "'" && i < n && !AFTER_STRING.test(text[i] as string)) return { kind: 'ambiguous-quote', at: end }
      if (text[i] === '"' || text[i] === "'")
        noValue ??= { kind: 'no-value', at: i, what: 'a string followed at once by a quote: write quotes inside strings as \\"' }
      continue
    }
    if (ch === ':') {
      let k = i + 1
      while (k < n && /\s/.test(text[k] as string)) k++
      if (text[k] === ',' || text[k] === '}' || text[k] === ']') noValue ??= { kind: 'no-value', at: i, what: 'a key with no value after its colon' }
      i++
      continue
    }
    if ((ch === '-' || ch === '.' || (ch >= '0' && ch <= '9')) && !NUMBER_CHAR.test(text[i - 1] ?? ' ')) {
      const token = NUMBER_TOKEN.exec(text.slice(i, i + 400))?.[0] ?? ch
      // Followed by a name (`-Infinity`, `0x1F`, `2024-01-01T...`): the name checks below decide.
      // An ellipsis (`...`) is no number: the ellipsis check names it.
      if (!NAME_CHAR.test(text[i + token.length] ?? ' ') && !/\d$/.test(token) && !/^-?\d+\.$/.test(token) && !token.startsWith('...'))
        noValue ??= { kind: 'no-value', at: i, what: `the number ${token} is not complete` }
      i += token.length
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
      if (text[k] !== ':' && (name === 'NaN' || name === 'Infinity')) return { kind: 'non-finite', name }
      // `"said "yes", then left"`: words ending in a quote after a string are the rest of that string.
      if (text[k] !== ':' && !LITERALS.has(name) && STRING_REST.test(text.slice(i, i + 200))) return { kind: 'inner-quote', at: i }
      if (text[k] !== ':' && !LITERALS.has(name)) return { kind: 'bare-name', name }
      i = j
      continue
    }
    i++
  }
  if (depth > 0) return { kind: 'incomplete' }
  if (noValue !== undefined) return noValue
  if (innerQuotes === undefined && curlyQuotes === undefined) return { kind: 'ok' }
  return { kind: 'ok', ...(innerQuotes === undefined ? {} : { innerQuotes }), ...(curlyQuotes === undefined ? {} : { curlyQuotes }) }
}

/** Whether the character at `at` is escaped: an odd number of backslashes stands right before it. */
function escapedAt(text: string, at: number): boolean {
  let slashes = 0
  while (at - slashes - 1 >= 0 && text.charCodeAt(at - slashes - 1) === BACKSLASH) slashes++
  return slashes % 2 === 1
}

// A number as written, digits or not (`-`, `.5`, `1e+`, `2024-01-01`; `-e5` is a sign and a name), and what may stand right before one.
const NUMBER_TOKEN = /^[-+.]*(?:\d[-+.\deE]*)?/
const NUMBER_CHAR = /[\w.$+-]/
const BACKSLASH = 92
// What may follow a backslash in a string: JSON's escapes, and `'` (read as itself).
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u', "'"])

/** The first backslash in the string from `start` to `end` (its quotes) that starts no escape, as what a repair would invent; or `undefined`. */
function badEscape(text: string, start: number, end: number): CandidateScan | undefined {
  for (let i = start + 1; i < end; i++) {
    if (text.charCodeAt(i) !== BACKSLASH) continue
    const next = text[i + 1] as string
    if (!ESCAPES.has(next) || (next === 'u' && !/^[\dA-Fa-f]{4}$/.test(text.slice(i + 2, i + 6)))) {
      return { kind: 'no-value', at: i, what: `${text.slice(i, i + 2)} in a string is not a JSON escape: write a backslash as \\\\` }
    }
    i++ // the escaped character
  }
  return undefined
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
