import { errorName, messageOf } from '../../model/message-of.ts'
import { MAX_PROBLEM, oneLine } from '../feedback/feedback-limits.ts'

// Past this nesting the walk writes "[Too deep]": JSON.stringify already failed on this value, and a
// hostile one may nest 200,000 levels.
const MAX_DEPTH = 100

/**
 * The JSON text of a value, for a value JSON cannot write as well: what `JSON.stringify` writes
 * when it can; else the same walk done safely, where a BigInt is written as its decimal string, a
 * cycle as `"[Circular]"`, a function as `"[Function name]"`, a Symbol as `"[Symbol(description)]"`,
 * a `toJSON`, a getter or a Proxy trap that throws as `"[Unreadable: <error>]"` (one bounded line),
 * and nesting past 100 levels as `"[Too deep]"`. `undefined` only when the value itself is nothing
 * JSON writes (`undefined`, or a `toJSON` giving it). Never throws; never a function's source.
 *
 * @example
 * safeJsonText({ total: 10n, f: function refund() {} }) // '{"total":"10","f":"[Function refund]"}'
 */
export function safeJsonText(value: unknown): string | undefined {
  try {
    const text: string | undefined = JSON.stringify(value)
    if (text !== undefined) return text
  } catch {
    // Written below, safely.
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
  stack.push(v)
  try {
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
