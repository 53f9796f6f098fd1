/**
 * The checks of numeric options, one message shape for all of them:
 * `<label> must be a positive number, got <value>`. Each returns the checked number, or `fallback`
 * when `value` is `undefined` and a fallback is given; anything else throws a `RangeError`.
 * `label` names the option and where it was given, e.g. `'createGate: timeoutMs'`.
 *
 * @example
 * const timeoutMs = positiveNumber(options.timeoutMs, 'createGate: timeoutMs', 60_000)
 */

/** A finite number above 0. */
export function positiveNumber(value: unknown, label: string, fallback?: number): number {
  return check(value, label, fallback, 'a positive number', (n) => Number.isFinite(n) && n > 0)
}

/** A finite number, 0 or above. */
export function nonNegativeNumber(value: unknown, label: string, fallback?: number): number {
  return check(value, label, fallback, 'a non-negative number', (n) => Number.isFinite(n) && n >= 0)
}

/** An integer, 1 or above. */
export function positiveInteger(value: unknown, label: string, fallback?: number): number {
  return check(value, label, fallback, 'a positive integer', (n) => Number.isInteger(n) && n >= 1)
}

/** An integer, 0 or above. */
export function nonNegativeInteger(value: unknown, label: string, fallback?: number): number {
  return check(value, label, fallback, 'a non-negative integer', (n) => Number.isInteger(n) && n >= 0)
}

function check(value: unknown, label: string, fallback: number | undefined, expected: string, accepts: (n: number) => boolean): number {
  if (value === undefined && fallback !== undefined) return fallback
  if (typeof value === 'number' && accepts(value)) return value
  throw new RangeError(`${label} must be ${expected}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`)
}
