import { nextOutside, startsNumber } from './non-finite.ts'

// Sixteen digits in a row: the shortest integer a double may not hold exactly (2^53 has 16 digits).
const LONG_DIGITS = /\d{16}/
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** An integer written in a JSON text that `JSON.parse` reads as another number. */
export interface InexactInteger {
  readonly text: string
  readonly at: number
  /** What it reads as (`12345678901234567890` reads as `12345678901234567000`). */
  readonly reads: string
}

/**
 * Where a JSON text writes an integer that `JSON.parse` reads, without a word, as another one (beyond
 * ±2^53: `12345678901234567890` reads as `12345678901234567000`): the first such integer, or
 * `undefined`. An integer whose reading shows the same value is kept (`100000000000000000000`, and
 * 10^65 written out, which reads as `1e+65`); one written with a fraction or an exponent (`1.5e300`) is
 * read as the approximation it says it is. A regular-expression test first: the common text costs one scan.
 *
 * @example
 * findInexactInteger('{"id": 12345678901234567890}') // { text: '12345678901234567890', at: 7, reads: '12345678901234567000' }
 */
export function findInexactInteger(text: string): InexactInteger | undefined {
  if (!LONG_DIGITS.test(text)) return undefined
  for (let i = nextOutside(text, 0, startsNumber); i >= 0; i = nextOutside(text, i + 1, startsNumber)) {
    NUMBER.lastIndex = i
    const match = NUMBER.exec(text)
    if (match === null) continue
    const written = match[0]
    i = NUMBER.lastIndex - 1
    if (written.length < 16 || /[.eE]/.test(written)) continue
    const read = Number(written)
    // An overflow to Infinity is the non-finite check's to report.
    if (Number.isFinite(read) && BigInt(written) !== integerOf(String(read))) return { text: written, at: match.index, reads: String(read) }
  }
  return undefined
}

/** The integer a number's shortest text denotes (`1e+65` is 10^65: the value a reader sees, not the double's exact binary value). */
function integerOf(shown: string): bigint {
  const [mantissa = '', exponent = '0'] = shown.split(/e\+?/)
  const [whole = '', fraction = ''] = mantissa.split('.')
  const scale = Number(exponent) - fraction.length
  const digits = BigInt(`${whole}${fraction}`)
  return scale >= 0 ? digits * 10n ** BigInt(scale) : digits / 10n ** BigInt(-scale)
}

/** Said of an integer a JSON number cannot hold exactly. */
export function inexactIntegerMessage(found: InexactInteger): string {
  const cut = (s: string) => (s.length > 24 ? `${s.slice(0, 24)}…` : s)
  return `the integer ${cut(found.text)} (at character ${found.at}) has more digits than a JSON number holds exactly and would read as ${cut(found.reads)}: write it as a string (an identifier), or an integer within ±9007199254740991`
}
