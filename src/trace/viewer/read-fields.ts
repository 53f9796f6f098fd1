import { typeName } from '../../model/describe-value.ts'
import { isRecord } from '../../model/is-record.ts'

/** Longest text the viewer embeds per field, in characters (a hand-edited trace may hold anything). */
export const MAX_VIEW_TEXT = 100_000

/**
 * Reads the fields of one record read back from a trace file, where nothing is typed: a field of the
 * wrong type reads as absent and is noted in `problems` (shown as invalid, never a crash), texts are
 * cut at {@link MAX_VIEW_TEXT}.
 */
export class Fields {
  readonly #record: Readonly<Record<string, unknown>>
  readonly #where: string
  readonly problems: string[]

  constructor(record: Readonly<Record<string, unknown>>, where = '', problems: string[] = []) {
    this.#record = record
    this.#where = where
    this.problems = problems
  }

  /** The fields of a nested object (`usage`, `response`); absent or of the wrong type reads as empty. */
  nested(key: string): Fields {
    const value = this.#get(key)
    if (value !== undefined && value !== null && !isRecord(value)) this.#wrong(key, value, 'an object')
    return new Fields(isRecord(value) ? value : {}, this.#path(key), this.problems)
  }

  text(key: string): string | undefined {
    const value = this.#get(key)
    if (value === undefined || value === null) return undefined
    if (typeof value === 'string') return clipText(value)
    this.#wrong(key, value, 'a string')
    return undefined
  }

  number(key: string): number | undefined {
    const value = this.#get(key)
    if (value === undefined || value === null) return undefined
    if (typeof value === 'number' && Number.isFinite(value)) return value
    this.#wrong(key, value, 'a finite number')
    return undefined
  }

  boolean(key: string): boolean | undefined {
    const value = this.#get(key)
    if (value === undefined || value === null) return undefined
    if (typeof value === 'boolean') return value
    this.#wrong(key, value, 'a boolean')
    return undefined
  }

  /** A list of objects, each read with its own {@link Fields}; anything else reads as an empty list. */
  list(key: string): Fields[] {
    const value = this.#get(key)
    if (value === undefined || value === null) return []
    if (!Array.isArray(value)) {
      this.#wrong(key, value, 'a list')
      return []
    }
    return value.map((item, i) => {
      if (!isRecord(item)) this.#wrong(`${key}[${i}]`, item, 'an object')
      return new Fields(isRecord(item) ? item : {}, this.#path(`${key}[${i}]`), this.problems)
    })
  }

  /** A list of strings; items of another type are left out and noted. */
  texts(key: string): string[] {
    const value = this.#get(key)
    if (value === undefined || value === null) return []
    if (!Array.isArray(value)) {
      this.#wrong(key, value, 'a list')
      return []
    }
    const out: string[] = []
    for (const [i, item] of value.entries()) {
      if (typeof item === 'string') out.push(clipText(item))
      else this.#wrong(`${key}[${i}]`, item, 'a string')
    }
    return out
  }

  /** Any JSON value, as it is (shown as JSON text). */
  raw(key: string): unknown {
    return this.#get(key)
  }

  #get(key: string): unknown {
    return Object.hasOwn(this.#record, key) ? this.#record[key] : undefined
  }

  #wrong(key: string, value: unknown, expected: string): void {
    this.problems.push(`${this.#path(key)} is ${typeName(value)}, expected ${expected}`)
  }

  #path(key: string): string {
    return this.#where === '' ? key : `${this.#where}.${key}`
  }
}

/** A text cut at {@link MAX_VIEW_TEXT} with a marker saying how much was left out. */
export function clipText(text: string): string {
  return text.length > MAX_VIEW_TEXT ? `${text.slice(0, MAX_VIEW_TEXT)}…[${text.length - MAX_VIEW_TEXT} more characters]` : text
}
