import { shownValue, typeName } from './describe-value.ts'
import { refuseUnknownOptions } from './known-options.ts'

/**
 * The longest delay a timer can hold: Node, browsers, Bun and Deno store a timer's delay in a signed
 * 32-bit integer and fire a larger one after 1 ms, so every duration option stays below 2^31 ms.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * One option's check: returns what is wrong with `value` (the words after "must be"), or `undefined`
 * when it is acceptable. It is never called for `undefined` (an absent option).
 */
export type OptionCheck = (value: unknown) => string | undefined

/** The checks of an options object, one per key: a key without a row is refused as unknown. */
export type OptionsSpec<T> = { readonly [K in keyof Required<T>]-?: OptionCheck }

/** An options object's declaration: its label, its keys and one function that checks a given value. */
export interface OptionsContract<T extends object> {
  /** Where the options are given, as errors name it, e.g. `'redisStore'` or `'gate.run options'`. */
  readonly label: string
  /** Every key the options object takes. */
  readonly keys: readonly string[]
  /**
   * `given` checked, as a plain object of its own holding each declared option read once (those
   * `undefined` left out): what the caller must use from then on, never `given` (whose getters could
   * answer otherwise on a second read). `{}` for `undefined`; a `TypeError` for anything that is not a
   * plain object, or that has a key this contract does not declare (with "did you mean" from these
   * keys); a `TypeError` or `RangeError` naming the first key whose value fails its check.
   */
  check(given: T | undefined): T
}

const MUST =
  (expected: string) =>
  (ok: (value: unknown) => boolean): OptionCheck =>
  (value) =>
    ok(value) ? undefined : expected

/**
 * What a nested check answered, by the object it checked: taken by the outer check right after it (a
 * nested check may sit inside a check of the caller's own, so it cannot hand it back itself).
 */
const SETTLED = new WeakMap<object, unknown>()

/** The checks an options table is written with. Each names what it expects in the error it gives. */
export const option = {
  /** Anything: the value is checked where it is used (a schema, a client the SDK checks). */
  any: (): OptionCheck => () => undefined,
  boolean: (): OptionCheck => MUST('a boolean')((v) => typeof v === 'boolean'),
  string: (): OptionCheck => MUST('a string')((v) => typeof v === 'string'),
  nonEmptyString: (): OptionCheck => MUST('a non-empty string')((v) => typeof v === 'string' && v !== ''),
  function: (): OptionCheck => MUST('a function')((v) => typeof v === 'function'),
  object: (): OptionCheck => MUST('an object')((v) => typeof v === 'object' && v !== null && !Array.isArray(v)),
  array: (): OptionCheck => MUST('an array')(Array.isArray),
  /** A finite number above 0. */
  positiveNumber: (): OptionCheck => MUST('a positive number')((v) => typeof v === 'number' && Number.isFinite(v) && v > 0),
  /** A finite number, 0 or above. */
  nonNegativeNumber: (): OptionCheck => MUST('a non-negative number')((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0),
  /** A number from 0 to 1. */
  fraction: (): OptionCheck => MUST('a number from 0 to 1')((v) => typeof v === 'number' && v >= 0 && v <= 1),
  /** An integer from `min` (default 1) to `max` (default `Number.MAX_SAFE_INTEGER`). */
  integer: (min = 1, max = Number.MAX_SAFE_INTEGER): OptionCheck =>
    MUST(max === Number.MAX_SAFE_INTEGER ? `an integer, ${min} or above` : `an integer from ${min} to ${max}`)(
      (v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max,
    ),
  /**
   * A duration in whole milliseconds from `min` (default 1: a zero deadline would fail every call
   * after it was made) to {@link MAX_TIMER_MS}: a timer of 2^31 ms or more would fire after 1 ms.
   */
  duration: (min = 1): OptionCheck =>
    MUST(`a whole number of milliseconds from ${min} to ${MAX_TIMER_MS}`)((v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= MAX_TIMER_MS),
  /** One of the given strings (or values). */
  oneOf: (...values: readonly unknown[]): OptionCheck =>
    MUST(`one of ${values.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v))).join(', ')}`)((v) => values.includes(v)),
  /** Any of the given checks (the first message when none accepts). */
  either:
    (...checks: readonly OptionCheck[]): OptionCheck =>
    (value) => {
      const problems = checks.map((c) => c(value))
      return problems.includes(undefined) ? undefined : problems.join(' or ')
    },
  /** A check of the caller's own: `ok(value)` true, else `expected` is the message. */
  where: (expected: string, ok: (value: unknown) => boolean): OptionCheck => MUST(expected)(ok),
  /**
   * A nested options object, checked by its own contract (its errors name the nested key). The outer
   * check answers the nested object as checked (each option read once), never the given one, whose
   * getters a later read would ask again.
   */
  nested:
    <T extends object>(contract: OptionsContract<T>): OptionCheck =>
    (value) => {
      const settled = contract.check(value as T)
      if (typeof value === 'object' && value !== null) SETTLED.set(value, settled)
      return undefined
    },
} as const

/**
 * Declares an options object once, as a table of checks keyed by every key of `T` (a key the type
 * has but the table lacks does not compile), and returns its {@link OptionsContract}: the one check
 * every factory and per-call options object of the library goes through.
 *
 * @example
 * const REDIS_STORE = optionsContract<RedisStoreOptions>('redisStore', {
 *   client: option.any(),
 *   keyPrefix: option.nonEmptyString(),
 *   commandTimeoutMs: option.duration(),
 * })
 * const options = REDIS_STORE.check(given)
 */
export function optionsContract<T extends object>(label: string, spec: OptionsSpec<T>): OptionsContract<T> {
  const entries = Object.entries(spec) as [string, OptionCheck][]
  const keys = Object.freeze(entries.map(([key]) => key))
  return Object.freeze({
    label,
    keys,
    check(given: T | undefined): T {
      if (given === undefined) return {} as T
      if (typeof given !== 'object' || given === null || Array.isArray(given)) {
        throw new TypeError(`${label}: options must be an object, got ${typeName(given)}`)
      }
      refuseUnknownOptions(given, keys, label)
      // What was checked is what is used: each option read once, into a plain object of its own (a getter
      // answering a valid value to the check and another one later never reaches the code that takes it).
      const snapshot: Record<string, unknown> = {}
      for (const [key, check] of entries) {
        // An option whose getter throws is a TypeError naming it, never the getter's own error.
        const value = readOption(given, key, label)
        if (value === undefined) continue
        const nested = typeof value === 'object' && value !== null
        if (nested) SETTLED.delete(value)
        const problem = checked(check, value, key, label)
        if (problem !== undefined) {
          // A number out of its range (or a duration given as text) is a RangeError; any other wrong value, a number where a
          // function, a string or an object belongs included (`logger: 5`), is a TypeError.
          const numeric = problem.includes('number') || problem.includes('integer') || problem.includes('milliseconds')
          const Failure = numeric || (typeof value === 'number' && !NON_NUMERIC.test(problem)) ? RangeError : TypeError
          throw new Failure(`${label}: ${key} must be ${problem}, got ${shownValue(value)}`)
        }
        // A nested object as its own check answered it: read once, like the options around it.
        snapshot[key] = nested && SETTLED.has(value) ? SETTLED.get(value) : value
        if (nested) SETTLED.delete(value)
      }
      return snapshot as T
    },
  })
}

// What a check names when it wants no number at all: a number given there is of the wrong type, not out of range.
const NON_NUMERIC = /\b(?:string|function|object|array|boolean)\b/

/** The check's problem; a check that throws reading inside the value (a getter of a nested table) is a TypeError naming the option. */
function checked(check: OptionCheck, value: unknown, key: string, label: string): string | undefined {
  try {
    return check(value)
  } catch (error) {
    // A nested contract's own refusal is already typed and explained.
    if (error instanceof TypeError || error instanceof RangeError) throw error
    throw new TypeError(`${label}: ${key} could not be read: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** `given[key]`, read once; a getter that throws is a `TypeError` naming the option, never the getter's own error. */
export function readOption(given: object, key: string, label: string): unknown {
  try {
    return (given as Record<string, unknown>)[key]
  } catch (error) {
    throw new TypeError(`${label}: reading option "${key}" threw: ${error instanceof Error ? error.message : String(error)}`)
  }
}
