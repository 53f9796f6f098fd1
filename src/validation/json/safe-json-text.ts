import { errorName, messageOf } from '../../model/message-of.ts'
import { MAX_PROBLEM, oneLine } from '../feedback/feedback-limits.ts'

// Past this nesting the walk writes "[Too deep]": JSON.stringify already failed on this value, and a
// hostile one may nest 200,000 levels.
const MAX_DEPTH = 100

/**
 * The JSON text of a value, for a value JSON cannot write as well: what `JSON.stringify` writes
 * when it can; else the same walk done safely, where a BigInt is written as its decimal string, a
 * cycle as `"[Circular]"`, a function as `"[Function name]"`, a Symbol as `"[Symbol(description)]"`,
 * what JSON would write as `{}` while it holds data as that data (a Map with string keys as an
 * object, any other Map as its `[key, value]` pairs, a Set as an array of its values, a RegExp as
 * its `/source/flags` text) or, when it cannot be read, by its class (`"[WeakMap]"`, `"[Money]"` for
 * an instance with only private fields),
 * a `toJSON`, a getter or a Proxy trap that throws as `"[Unreadable: <error>]"` (one bounded line),
 * and nesting past 100 levels as `"[Too deep]"`. `undefined` only when the value itself is nothing
 * JSON writes (`undefined`, or a `toJSON` giving it). Never throws; never a function's source.
 *
 * @example
 * safeJsonText({ total: 10n, f: function refund() {} }) // '{"total":"10","f":"[Function refund]"}'
 */
export function safeJsonText(value: unknown): string | undefined {
  try {
    const text: string | undefined = JSON.stringify(value, plainOnly)
    if (text !== undefined) return text
  } catch {
    // Written below, safely (a Map, a Set or an opaque object met on the way included).
  }
  const out: string[] = []
  return write(value, '', [], out) ? out.join('') : undefined
}

type Read = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown }

function read(get: () => unknown): Read {
  try {
    return { ok: true, value: get() }
  } catch (error) {
    return { ok: false, error }
  }
}

const note = (text: string): string => JSON.stringify(text)

function unreadable(error: unknown): string {
  return note(`[Unreadable: ${oneLine(`${errorName(error) ?? 'thrown'}: ${messageOf(error)}`, MAX_PROBLEM)}]`)
}

/** Writes `value` (the property `key` of its holder) to `out`; false when JSON would leave it out. */
function write(value: unknown, key: string, stack: unknown[], out: string[]): boolean {
  let v = value
  if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
    const toJSON = read(() => (v as { toJSON?: unknown }).toJSON)
    if (!toJSON.ok) return out.push(unreadable(toJSON.error)) > 0
    if (typeof toJSON.value === 'function') {
      const method = toJSON.value
      const given = read(() => method.call(v, key))
      if (!given.ok) return out.push(unreadable(given.error)) > 0
      v = given.value
    }
  }
  switch (typeof v) {
    case 'undefined':
      return false
    case 'string':
      return out.push(JSON.stringify(v)) > 0
    case 'number':
      return out.push(Number.isFinite(v) ? String(v) : 'null') > 0
    case 'boolean':
      return out.push(v ? 'true' : 'false') > 0
    case 'bigint':
      return out.push(note(v.toString())) > 0
    case 'symbol':
      return out.push(note(`[${messageOf(v)}]`)) > 0
    case 'function': {
      const name = read(() => (v as { name?: unknown }).name)
      const shown = name.ok && typeof name.value === 'string' && name.value !== '' ? oneLine(name.value, MAX_PROBLEM) : '(anonymous)'
      return out.push(note(`[Function ${shown}]`)) > 0
    }
  }
  if (v === null) return out.push('null') > 0
  if (stack.includes(v)) return out.push(note('[Circular]')) > 0
  if (stack.length >= MAX_DEPTH) return out.push(note('[Too deep]')) > 0
  const boxed = read(() => unboxed(v as object))
  if (!boxed.ok) return out.push(unreadable(boxed.error)) > 0
  if (boxed.value !== v) return write(boxed.value, key, stack, out)
  const shown = read(() => (needsWalk(v as object) ? faithful(v as object) : v))
  if (!shown.ok) return out.push(unreadable(shown.error)) > 0
  stack.push(v)
  try {
    // The data JSON would drop, written in its place (the value stays on the stack: a Map holding itself is a cycle).
    if (shown.value !== v) return write(shown.value, key, stack, out)
    const isArray = read(() => Array.isArray(v))
    if (!isArray.ok) return out.push(unreadable(isArray.error)) > 0
    return isArray.value === true ? writeArray(v as unknown[], stack, out) : writeObject(v as object, stack, out)
  } finally {
    stack.pop()
  }
}

function writeArray(array: unknown[], stack: unknown[], out: string[]): boolean {
  const length = read(() => array.length)
  if (!length.ok) return out.push(unreadable(length.error)) > 0
  out.push('[')
  for (let i = 0; i < (length.value as number); i++) {
    if (i > 0) out.push(',')
    const item = read(() => array[i])
    if (!item.ok) out.push(unreadable(item.error))
    else if (!write(item.value, String(i), stack, out)) out.push('null')
  }
  return out.push(']') > 0
}

function writeObject(object: object, stack: unknown[], out: string[]): boolean {
  const keys = read(() => Object.keys(object))
  if (!keys.ok) return out.push(unreadable(keys.error)) > 0
  out.push('{')
  let first = true
  for (const key of keys.value as string[]) {
    const mark = out.length
    out.push(`${first ? '' : ','}${JSON.stringify(key)}:`)
    const item = read(() => (object as Record<string, unknown>)[key])
    if (!item.ok) out.push(unreadable(item.error))
    else if (!write(item.value, key, stack, out)) {
      out.length = mark
      continue
    }
    first = false
  }
  return out.push('}') > 0
}

/** The primitive inside a boxed Number, String, Boolean or BigInt (JSON writes those as their value); anything else as it is. */
function unboxed(value: object): unknown {
  if (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt) return value.valueOf()
  return value
}

/**
 * A `JSON.stringify` replacer writing what JSON would write as `{}` while it holds data as
 * {@link safeJsonText} writes it (a Map's entries, a Set's values, a RegExp's text, an opaque
 * instance's class); everything else as JSON writes it, so a cycle or a BigInt still throws.
 */
export function keepingData(_key: string, value: unknown): unknown {
  return typeof value === 'object' && value !== null && needsWalk(value) ? faithful(value) : value
}

/** The replacer of the first try: it stops `JSON.stringify` at the first value it would write as `{}` while that value holds data. */
function plainOnly(_key: string, value: unknown): unknown {
  if (typeof value === 'object' && value !== null && needsWalk(value)) throw new TypeError('written by the walk')
  return value
}

/**
 * True for an object JSON writes as `{}` (or without its data) while it holds some: a Map, a Set,
 * a RegExp, and an instance of a class (no plain object, array or boxed primitive) with no
 * enumerable key of its own, whose data JSON cannot see (private fields, internal slots).
 */
function needsWalk(value: object): boolean {
  if (value instanceof Map || value instanceof Set || value instanceof RegExp) return true
  if (Array.isArray(value) || unboxed(value) !== value) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto !== Object.prototype && proto !== null && Object.keys(value).length === 0
}

/** What `value` (one {@link needsWalk} accepts) is written as: its data, or a note naming its class. */
function faithful(value: object): unknown {
  if (value instanceof Map) {
    const entries = [...value.entries()]
    return entries.every(([k]) => typeof k === 'string') ? Object.fromEntries(entries) : entries
  }
  if (value instanceof Set) return [...value.values()]
  if (value instanceof RegExp) return String(value)
  const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name
  return `[${typeof name === 'string' && name !== '' ? oneLine(name, MAX_PROBLEM) : 'Object'}]`
}
