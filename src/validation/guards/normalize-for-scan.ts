import { assertString } from '../../model/argument-checks.ts'
// Invisible characters that split a word for a reader's eye but not for a model: zero-width space,
// joiners, word joiner, invisible operators, byte-order mark, soft hyphen, bidi controls, tag characters.
const INVISIBLE = new RegExp(
  [
    '\\u00AD',
    '\\u034F',
    '\\u061C',
    '\\u115F',
    '\\u1160',
    '\\u17B4',
    '\\u17B5',
    '\\u180E',
    '[\\u200B-\\u200F]',
    '[\\u202A-\\u202E]',
    '[\\u2060-\\u2064]',
    '[\\u2066-\\u206F]',
    '\\u3164',
    '\\uFEFF',
    '\\uFFA0',
    '\\uDB40[\\uDC00-\\uDC7F]',
  ].join('|'),
  'g',
)

/** One invisible character (a code point of {@link normalizeForScan}'s invisible set). */
export const INVISIBLE_CHAR = new RegExp(`^(?:${INVISIBLE.source})$`)

/** Any invisible character in a text. */
export const INVISIBLE_ANY = new RegExp(INVISIBLE.source)

// Letters of other scripts drawn like Latin ones (Unicode's confusables, the common subset), after lower-casing.
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ї: 'i',
  ј: 'j',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ү: 'y',
  ӏ: 'l',
  ɡ: 'g',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  ς: 's',
  σ: 'o',
  // Latin look-alikes NFKC keeps
  ı: 'i',
  ȷ: 'j',
  ʀ: 'r',
  ɴ: 'n',
  ʏ: 'y',
  ᴀ: 'a',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ᴋ: 'k',
  ᴍ: 'm',
  ᴏ: 'o',
  ᴘ: 'p',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ᴢ: 'z',
}
const COMBINING = /\p{Mn}/gu
const HOMOGLYPH = new RegExp(`[${Object.keys(HOMOGLYPHS).join('')}]`, 'gu')

/**
 * A text as an instruction scanner reads it: NFKC (fullwidth and styled letters become plain ones),
 * combining marks and invisible characters removed, look-alike letters of other scripts read as Latin, lower case, runs
 * of whitespace as one space. What a person reads is what the scanner reads, whatever the encoding
 * tricks.
 *
 * @example
 * normalizeForScan('Ｉgn\u200Bore previоus') // 'ignore previous' (fullwidth I, a zero-width space, a Cyrillic о)
 */
export function normalizeForScan(text: string): string {
  assertString(text, 'normalizeForScan: text')
  return (
    text
      .normalize('NFKC')
      // Combining marks stacked on a letter (́, ̈, ...) are read as the bare letter: 'previouś' is 'previous'.
      .normalize('NFD')
      .replace(COMBINING, '')
      .replace(INVISIBLE, '')
      .toLowerCase()
      .replace(HOMOGLYPH, (c) => HOMOGLYPHS[c] ?? c)
      .replace(/\s+/g, ' ')
  )
}
