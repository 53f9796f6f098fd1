import { shownValue } from './describe-value.ts'

/**
 * The checks of numeric options, one message shape for all of them:
 * `<label> must be a positive number, got <value>`. Each returns the checked number, or `fallback`
 * when `value` is `undefined` and a fallback is given; anything else throws a `RangeError`.
 * `label` names the option and where it was given, e.g. `'createGate: timeoutMs'`.
 *
 * @example
 * const timeoutMs = positiveNumber(options.timeoutMs, 'createGate: timeoutMs', 60_000)
 */

/** What one kind of numeric option accepts, and how its message names it. */
interface NumberRule {
  /** The words after "must be", e.g. `a positive number`. */
  readonly expected: string
  readonly accepts: (n: number) => boolean
}

const POSITIVE_NUMBER: NumberRule = { expected: 'a positive number', accepts: (n) => Number.isFinite(n) && n > 0 }
const NON_NEGATIVE_NUMBER: NumberRule = { expected: 'a non-negative number', accepts: (n) => Number.isFinite(n) && n >= 0 }
const POSITIVE_INTEGER: NumberRule = { expected: 'a positive integer', accepts: (n) => Number.isSafeInteger(n) && n >= 1 }
const NON_NEGATIVE_INTEGER: NumberRule = { expected: 'a non-negative integer', accepts: (n) => Number.isSafeInteger(n) && n >= 0 }

/** A finite number above 0. */
export function positiveNumber(value: unknown, label: string, fallback?: number): number {
  return check(value, label, fallback, POSITIVE_NUMBER)
}

/** A finite number, 0 or above. */
export function nonNegativeNumber(value: unknown, label: string, fallback?: number): number {
  return check(value, label, fallback, NON_NEGATIVE_NUMBER)
}

/** An integer, 1 or above (a safe integer: a count past 2^53 cannot be counted exactly). */
export function positiveInteger(value: unknown, label: string, fallback?: number): number {
  return check(value, label, fallback, POSITIVE_INTEGER)
}

/** An integer, 0 or above (a safe integer). */
export function nonNegativeInteger(value: unknown, label: string, fallback?: number): number {
  return check(value, label, fallback, NON_NEGATIVE_INTEGER)
}

function check(value: unknown, label: string, fallback: number | undefined, rule: NumberRule): number {
  if (value === undefined && fallback !== undefined) return fallback
  if (typeof value === 'number' && rule.accepts(value)) return value
  throw new RangeError(`${label} must be ${rule.expected}, got ${shownValue(value)}`)
}
