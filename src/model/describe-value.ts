/**
 * What kind of value a misused option is, for an error message: `null`, `an array`, or its
 * `typeof` (`undefined`, `string`, `object`, ...).
 *
 * @example
 * `options must be an object, got ${typeName(options)}` // '... got null'
 */
export function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}

/**
 * A misused option as an error message shows it: a string quoted (and cut at 40 characters), a
 * number or boolean as written, anything else by {@link typeName} (an object's contents may be large
 * or private).
 *
 * @example
 * `maxTokens must be a positive integer, got ${shownValue('100')}` // '... got "100"'
 */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return typeName(value)
}
