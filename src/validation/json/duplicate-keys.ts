import type { ValidationIssue } from '../issue.ts'
import { makeIssue } from '../schema/make-issue.ts'
import type { PathSegment } from '../schema/path.ts'
import { renderLiteral } from '../schema/received.ts'

/** A key written twice in one object with different values (`JSON.parse` keeps the last silently). */
export interface DuplicateKey {
  readonly segments: readonly PathSegment[]
  readonly first: unknown
  readonly last: unknown
}

/**
 * The first key of a JSON text written twice in the same object with different values, or
 * `undefined` (equal duplicates are harmless: every reader gets the same value). For text
 * `JSON.parse` accepted, with `value` its result. Cheap for the common text: every key written ends
 * with a quote and a colon (`"key":`, or with white space between), and a string holds `":` only after
 * an escaped quote; a key written twice leaves fewer keys in `value` than the text has key ends, so
 * the text is read again only when it has more of them than `value` has keys.
 *
 * @example
 * findDuplicateKey('{"amount": 50, "amount": 45}', { amount: 45 }) // { segments: ['amount'], first: 50, last: 45 }
 */
export function findDuplicateKey(text: string, value: unknown): DuplicateKey | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const keys = keyCensus(value)
  if (keys >= 0 && !mayRepeatKey(text, keys)) return undefined
  return new DuplicateReader(text).find()
}

/**
 * Whether `text`, which `JSON.parse` read as a value with `keys` keys, may write a key twice: it has
 * more key ends (a quote, JSON white space, a colon: `":`, `" :`) than the value has keys. A string
 * holding a key end (`"\":"`) counts as one too, so equal counts prove nothing and more only ask for
 * the full read.
 */
export function mayRepeatKey(text: string, keys: number): boolean {
  // Colons found with a one-character `indexOf` (about twice as fast as a character loop on the short
  // texts most answers are), each then read back over white space for its quote: one pass, no regular
  // expression (a `/"\s+:/g` match per answer cost as much as the rest of this check).
  let marks = 0
  for (let at = text.indexOf(':'); at >= 0; at = text.indexOf(':', at + 1)) {
    let before = at - 1
    let c = text.charCodeAt(before)
    while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(--before)
    if (c === 34) marks++
  }
  return marks > keys
}

/**
 * What {@link keyCensus} answers for a value holding a number `JSON.parse` may have read as another
 * one: ±Infinity (`1e999`), or a magnitude past 2^53, where an integer written may read as another
 * (`12345678901234567890` reads as `12345678901234567000`); the text then says which it was.
 */
export const HOLDS_NON_FINITE = -1

// Past it, not every integer has a double of its own.
const EXACT_INTEGERS = 2 ** 53

/**
 * The number of keys of a value `JSON.parse` made, objects nested in arrays and objects included,
 * or {@link HOLDS_NON_FINITE} when it holds a number read as ±Infinity or past ±2^53. One walk with `for...in`
 * (no array of names made): JSON.parse makes plain objects whose own keys are all the enumerable
 * ones (a key `__proto__` is an own data property, counted like any other).
 */
export function keyCensus(value: unknown): number {
  if (typeof value !== 'object' || value === null) {
    // NaN never comes out of JSON.parse; `!(|x| < 2^53)` is true for ±Infinity and every magnitude past 2^53.
    return typeof value === 'number' && !(Math.abs(value) < EXACT_INTEGERS) ? HOLDS_NON_FINITE : 0
  }
  let keys = 0
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = keyCensus(value[i])
      if (inner < 0) return HOLDS_NON_FINITE
      keys += inner
    }
    return keys
  }
  const record = value as Record<string, unknown>
  for (const name in record) {
    keys++
    const inner = keyCensus(record[name])
    if (inner < 0) return HOLDS_NON_FINITE
    keys += inner
  }
  return keys
}

/** The feedback issue for a duplicate key: path first, both values named. */
export function duplicateKeyIssue(found: DuplicateKey): ValidationIssue {
  return makeIssue({
    segments: found.segments,
    code: 'other',
    message: `written twice in the same object with different values (${renderLiteral(found.first)}, then ${renderLiteral(found.last)}): keep only the one you mean`,
  })
}

// Nesting the reader follows; deeper duplicates go unreported (the default depth limit is 256).
const MAX_READ_DEPTH = 1024
// Thrown to unwind the reader at once; made once, caught in `find`, never seen outside.
const TOO_DEEP = new Error('too deep to read for duplicate keys')

/** A reader of valid JSON (`JSON.parse` accepted it) that stops at the first conflicting duplicate key. */
class DuplicateReader {
  private readonly text: string
  private i = 0
  private found: DuplicateKey | undefined
  constructor(text: string) {
    this.text = text
  }

  find(): DuplicateKey | undefined {
    try {
      this.value([])
    } catch (error) {
      if (error !== TOO_DEEP) throw error
    }
    return this.found
  }

  private value(path: PathSegment[]): unknown {
    // Deeper than any default limit: give up rather than recurse without bound (the limit a caller set may be huge).
    if (path.length > MAX_READ_DEPTH) throw TOO_DEEP
    this.space()
    const c = this.text[this.i]
    if (c === '{') return this.object(path)
    if (c === '[') return this.array(path)
    if (c === '"') return this.string()
    const start = this.i
    while (this.i < this.text.length && !',}] \t\n\r'.includes(this.text[this.i] as string)) this.i++
    return JSON.parse(this.text.slice(start, this.i)) as unknown
  }

  private object(path: PathSegment[]): unknown {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>
    this.i++
    for (this.space(); this.text[this.i] !== '}' && this.found === undefined; this.space()) {
      const key = this.string()
      this.space()
      this.i++ // the colon
      const child = this.value([...path, key])
      if (Object.hasOwn(out, key) && !sameJson(out[key], child) && this.found === undefined) {
        this.found = { segments: [...path, key], first: out[key], last: child }
      }
      out[key] = child
      this.space()
      if (this.text[this.i] === ',') this.i++
    }
    this.i++
    return out
  }

  private array(path: PathSegment[]): unknown[] {
    const out: unknown[] = []
    this.i++
    for (this.space(); this.text[this.i] !== ']' && this.found === undefined; this.space()) {
      out.push(this.value([...path, out.length]))
      this.space()
      if (this.text[this.i] === ',') this.i++
    }
    this.i++
    return out
  }

  private string(): string {
    const start = this.i
    for (this.i++; this.text[this.i] !== '"'; this.i++) if (this.text[this.i] === '\\') this.i++
    this.i++
    return JSON.parse(this.text.slice(start, this.i)) as string
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i] as string)) this.i++
  }
}

/** Whether two parsed JSON values are equal (no `node:util` in the core: it runs on every runtime). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as unknown[]
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]))
  }
  const left = Object.keys(a)
  const right = b as Record<string, unknown>
  return left.length === Object.keys(right).length && left.every((k) => Object.hasOwn(right, k) && sameJson((a as Record<string, unknown>)[k], right[k]))
}
