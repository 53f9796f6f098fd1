// A number JSON.parse reads as ±Infinity: an exponent of three digits or more, or 309 digits in a row
// (looked for only in texts that long).
const BIG_EXPONENT = /[eE]\+?\d\d\d/
const LONG_DIGITS = /\d{309}/
const mayOverflow = (text: string): boolean => BIG_EXPONENT.test(text) || (text.length >= 309 && LONG_DIGITS.test(text))
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/**
 * Where a JSON text holds a number too large for a double (`1e999`, which `JSON.parse` reads as
 * `Infinity`): the number's text and offset, or `undefined`. A regular-expression test first, so the
 * common text costs one linear scan; the parsed value is walked only when the text may overflow.
 *
 * @example
 * findNonFiniteNumber('{"amount": 1e999}', { amount: Infinity }) // { text: '1e999', at: 11 }
 */
export function findNonFiniteNumber(text: string, value: unknown): { readonly text: string; readonly at: number } | undefined {
  if (!mayOverflow(text) || !holdsNonFinite(value)) return undefined
  // The value holds one: find its text (outside strings) for the message.
  for (let i = nextOutside(text, 0, startsNumber); i >= 0; i = nextOutside(text, i + 1, startsNumber)) {
    NUMBER.lastIndex = i
    const match = NUMBER.exec(text)
    if (match === null) continue
    if (!Number.isFinite(Number(match[0]))) return { text: match[0], at: i }
    i = NUMBER.lastIndex - 1
  }
  return { text: 'a number', at: 0 }
}

function holdsNonFinite(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true
    } else if (typeof v === 'object' && v !== null) {
      for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child)
    }
  }
  return false
}

/** Said of a number JSON cannot hold. */
export function nonFiniteMessage(found: { readonly text: string; readonly at: number }): string {
  return `the number ${found.text.length > 24 ? `${found.text.slice(0, 24)}…` : found.text} (at character ${found.at}) is too large for a JSON number and would read as Infinity: write a finite number, or the value as a string`
}

// NaN and Infinity are JavaScript, not JSON.
const NON_JSON_NUMBER = /-?(?:NaN|Infinity)(?![\w$])/y

/**
 * For a text that failed to parse: the message naming a `NaN` or `Infinity` literal written outside
 * strings (JavaScript, not JSON), else `undefined`. Runs on parse failures only.
 *
 * @example
 * nonJsonNumberIn('{"ratio": NaN}') // 'NaN (at character 10) is not a JSON number: ...'
 */
export function nonJsonNumberIn(text: string): string | undefined {
  for (let i = nextOutside(text, 0, startsNonJson); i >= 0; i = nextOutside(text, i + 1, startsNonJson)) {
    NON_JSON_NUMBER.lastIndex = i
    const match = NON_JSON_NUMBER.exec(text)
    if (match !== null) {
      return `${match[0]} (at character ${i}) is not a JSON number: JSON numbers are finite, without NaN or Infinity; write a finite number, or null`
    }
  }
  return undefined
}

/** `-` or a digit: where a number may start. */
export const startsNumber = (text: string, i: number): boolean => {
  const code = text.charCodeAt(i)
  return code === 45 || (code >= 48 && code <= 57)
}

// `N`, `I` or `-` not inside a word: where a `NaN` or `Infinity` literal may start.
const startsNonJson = (text: string, i: number): boolean => {
  const code = text.charCodeAt(i)
  return (code === 78 || code === 73 || code === 45) && !/[\w$]/.test(text[i - 1] ?? ' ')
}

/**
 * The first index from `from` on, outside JSON strings, where `wanted` holds, or -1. `from` must
 * itself be outside strings (a position this function or a value's end returned).
 */
export function nextOutside(text: string, from: number, wanted: (text: string, i: number) => boolean): number {
  let inString = false
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 92) i++
      else if (code === 34) inString = false
    } else if (code === 34) inString = true
    else if (wanted(text, i)) return i
  }
  return -1
}
