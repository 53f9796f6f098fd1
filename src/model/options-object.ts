import { shownValue, typeName } from './describe-value.ts'

/**
 * The options object given to a factory: `{}` when none was given, the object itself when it is
 * one; anything else (`null`, a number, an array) throws a `TypeError` naming the factory, instead
 * of failing later on a property read. `label` is the factory's name, e.g. `'circuitBreaker'`.
 *
 * @example
 * const o = optionsObject(options, 'circuitBreaker')
 */
export function optionsObject<T extends object>(value: T | undefined, label: string): T {
  if (value === undefined) return {} as T
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${label}: options must be an object, got ${typeName(value)}`)
  }
  return value
}

/** The methods in `names` that `value` lacks (all of them when it is no object). */
export function missingMethods(value: unknown, names: readonly string[]): readonly string[] {
  if (typeof value !== 'object' || value === null) return names
  return names.filter((name) => typeof (value as Record<string, unknown>)[name] !== 'function')
}

/** Throws a `TypeError` unless `value` has every method in `names` (what the library calls on it). */
export function assertMethods(value: unknown, names: readonly string[], label: string, what: string): void {
  const missing = missingMethods(value, names)
  if (missing.length > 0) throw new TypeError(`${label} must be ${what}, missing ${missing.map((name) => `${name}()`).join(', ')}`)
}

/** Throws a `TypeError` unless `value` is a non-empty string. */
export function assertNonEmptyString(value: unknown, label: string): void {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`${label} must be a non-empty string, got ${shownValue(value)}`)
  }
}
