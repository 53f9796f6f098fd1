import { shownValue, typeName } from './describe-value.ts'

// The guards at the top of a public function whose argument is a value, not an options object: a
// caller's `null` or number gets a TypeError naming the function and the argument, instead of a
// "Cannot read properties of null" from somewhere inside.

/**
 * Throws a `TypeError` unless `value` is a string. `label` names the function and the argument.
 *
 * @example
 * assertString(text, 'extractJson: text') // 'extractJson: text must be a string, got null'
 */
export function assertString(value: unknown, label: string): asserts value is string {
  if (typeof value !== 'string') throw new TypeError(`${label} must be a string, got ${shownValue(value)}`)
}

/** Throws a `TypeError` unless `value` is an object (not `null`, not an array); `what` says which object, e.g. `'{ runId, step, reason }'`. */
export function assertObject(value: unknown, label: string, what: string): asserts value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${label} must be ${what}, got ${typeName(value)}`)
  }
}

/** Throws a `TypeError` unless `value` is an array; `what` says of what, e.g. `'an array of issues'`. */
export function assertArray(value: unknown, label: string, what: string): asserts value is readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`${label} must be ${what}, got ${typeName(value)}`)
}
