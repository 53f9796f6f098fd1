import { utf8Length } from '../../model/utf8-length.ts'

// What a walk answers besides a length: the value is left out of JSON (undefined, a function, a
// symbol), or the walk leaves the value to JSON.stringify itself (a toJSON, a class, a bigint, depth).
const ABSENT = -1
const STRINGIFY = -2
// Deeper than this the walk leaves the value to JSON.stringify (which also finds cycles).
const MAX_DEPTH = 32
// Past this many bytes the walk leaves the value to JSON.stringify (which may find it too long to write).
const MAX_WALKED_BYTES = 1 << 22
// 10 ** d, exact up to 1e21, past which JSON writes integers with an exponent.
const POWERS_OF_TEN = Array.from({ length: 22 }, (_, d) => 10 ** d)
// The lengths of values the library made deeply frozen (a gate's wire schema): they cannot change, so are measured once.
const KNOWN = new WeakMap<object, number>()

/**
 * Records the JSON length of `value`, which must be deeply frozen and owned by the library (nobody
 * else holds it, nothing in it can change): {@link jsonBytes} answers it without walking again.
 */
export function rememberJsonBytes(value: object, bytes: number): void {
  KNOWN.set(value, bytes)
}

/**
 * The UTF-8 length of `JSON.stringify(value)`, 0 when it writes nothing or throws, without writing
 * it: a request's schema and tools are measured before every attempt, and making their JSON each
 * time was the reservation's largest allocation. Plain objects and arrays of strings, numbers,
 * booleans and null are walked; anything else (a `toJSON`, a class instance, a bigint, a deep,
 * cyclic or huge value) is stringified, so the length is always the one `JSON.stringify` would give now.
 */
export function jsonBytes(value: unknown): number {
  let bytes = typeof value === 'object' && value !== null ? KNOWN.get(value) : undefined
  if (bytes !== undefined) return bytes
  try {
    bytes = walk(value, 0)
  } catch {
    bytes = STRINGIFY // a getter threw: JSON.stringify decides what that gives
  }
  if (bytes === ABSENT) return 0
  if (bytes !== STRINGIFY) return bytes
  try {
    return utf8Length(JSON.stringify(value) ?? '')
  } catch {
    return 0
  }
}

function walk(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return stringBytes(value)
    case 'number':
      return Number.isFinite(value) ? numberBytes(value) : 4 // null
    case 'boolean':
      return value ? 4 : 5
    case 'undefined':
    case 'function':
    case 'symbol':
      return ABSENT
    case 'bigint':
      return STRINGIFY
  }
  if (value === null) return 4
  if (depth >= MAX_DEPTH) return STRINGIFY
  const proto: unknown = Object.getPrototypeOf(value)
  if (Array.isArray(value)) return proto === Array.prototype ? arrayBytes(value, depth) : STRINGIFY
  if (proto !== Object.prototype && proto !== null) return STRINGIFY
  return objectBytes(value as Record<string, unknown>, depth)
}

function arrayBytes(array: readonly unknown[], depth: number): number {
  if (typeof (array as { toJSON?: unknown }).toJSON === 'function') return STRINGIFY
  let bytes = 2 + Math.max(0, array.length - 1) // brackets, commas
  for (let i = 0; i < array.length; i++) {
    const item = walk(array[i], depth + 1)
    if (item === STRINGIFY) return STRINGIFY
    bytes += item === ABSENT ? 4 : item // null
    if (bytes > MAX_WALKED_BYTES) return STRINGIFY
  }
  return bytes
}

function objectBytes(object: Record<string, unknown>, depth: number): number {
  if (typeof object.toJSON === 'function') return STRINGIFY
  let bytes = 2 // braces
  let count = 0
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue
    const item = walk(object[key], depth + 1)
    if (item === STRINGIFY) return STRINGIFY
    if (item === ABSENT) continue
    bytes += stringBytes(key) + 1 + item // key, colon, value
    count++
    if (bytes > MAX_WALKED_BYTES) return STRINGIFY
  }
  return bytes + Math.max(0, count - 1) // commas
}

/** The UTF-8 length of a string as JSON writes it: quoted, with its escapes. */
function stringBytes(text: string): number {
  let bytes = 2
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit === 0x22 || unit === 0x5c)
      bytes += 2 // \" \\
    else if (unit < 0x20)
      bytes += unit === 8 || unit === 9 || unit === 10 || unit === 12 || unit === 13 ? 2 : 6 // \n, \u0001
    else if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (unit < 0xd800 || unit > 0xdfff) bytes += 3
    else if (unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4
      i++
    } else bytes += 6 // a lone surrogate is written escaped, \udXXX
  }
  return bytes
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff
}

/** The length of a finite number as JSON writes it (ASCII): counted for an integer, written for any other. */
function numberBytes(n: number): number {
  const size = Math.abs(n)
  if (!Number.isInteger(n) || size >= 1e21) return String(n).length
  let digits = 1
  while (digits < POWERS_OF_TEN.length && size >= (POWERS_OF_TEN[digits] as number)) digits++
  return n < 0 ? digits + 1 : digits
}
