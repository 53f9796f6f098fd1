import { messageOf } from './message-of.ts'

/**
 * The JSON text of a value, never throwing: a BigInt, a cycle or a throwing `toJSON` falls back to
 * the value's string form (or a description, for a value that has none), and a value JSON has no
 * text for (`undefined`, a function) gives its string form.
 *
 * @example
 * jsonTextOf({ a: 1 }) // '{"a":1}'
 * jsonTextOf(10n)      // '10'
 */
export function jsonTextOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return messageOf(value)
  }
}
