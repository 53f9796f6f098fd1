import { errorName, messageOf } from '../model/message-of.ts'

/** Longest string written to a trace line, in characters; longer ones are cut with a marker. */
export const MAX_TRACE_STRING = 100_000
/** Deepest nesting written; deeper values become `"[too deep]"`. */
export const MAX_TRACE_DEPTH = 32
/** Most entries written per array or object; the rest are counted in a marker. */
export const MAX_TRACE_ENTRIES = 10_000

/** Field names to replace by `"[redacted]"`: `content` at any depth, `metadata.secret` under any `metadata`. */
export type Redaction = readonly (readonly string[])[]

/** The redaction of a list of field names (a dotted name is a path of names, matched at any depth). */
export function redactionOf(names: readonly string[]): Redaction {
  return names.map((name) => name.split('.'))
}

/**
 * A plain-data copy of `value` that `JSON.stringify` writes on one line and never throws on: cycles
 * become `"[circular]"`, functions, symbols and signals are left out, bigints are strings, errors
 * their name and message, a getter or a Proxy that throws becomes `"[unreadable: <message>]"`,
 * strings, depth and entries are bounded, `__proto__` stays a plain field, and the redacted fields
 * are `"[redacted]"`.
 */
export function jsonSafe(value: unknown, redaction: Redaction): unknown {
  return copy(value, { redaction, path: [], ancestors: [] })
}

/**
 * One {@link jsonSafe} copy on its way down: the redaction it applies, the field names from the
 * root to the value being copied, and the objects that hold it (a value among them is a cycle; how
 * many there are is the depth).
 */
interface CopyWalk {
  readonly redaction: Redaction
  readonly path: string[]
  readonly ancestors: object[]
}

/** The name and message of anything thrown, never throwing. */
export function errorRecord(error: unknown): { readonly name: string; readonly message: string } {
  return { name: errorName(error) ?? typeof error, message: clip(messageOf(error)) }
}

function clip(text: string): string {
  return text.length > MAX_TRACE_STRING ? `${text.slice(0, MAX_TRACE_STRING)}…[${text.length - MAX_TRACE_STRING} more characters]` : text
}

function copy(value: unknown, walk: CopyWalk): unknown {
  if (typeof value === 'string') return clip(value)
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'function' || typeof value === 'symbol') return undefined
  if (typeof value !== 'object' || value === null) return value
  const ancestors = walk.ancestors
  if (ancestors.includes(value)) return '[circular]'
  if (ancestors.length >= MAX_TRACE_DEPTH) return '[too deep]'
  try {
    if (value instanceof AbortSignal) return undefined
    // Its name and message, walked like any fields: `redact: ['message']` reaches an error nested in a tool's result too.
    if (value instanceof Error) return copyObject(errorRecord(value), walk)
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
    ancestors.push(value)
    try {
      return Array.isArray(value) ? copyArray(value, walk) : copyObject(value, walk)
    } finally {
      ancestors.pop()
    }
  } catch (error) {
    return `[unreadable: ${clip(messageOf(error))}]`
  }
}

function copyArray(value: readonly unknown[], walk: CopyWalk): unknown[] {
  const n = Math.min(value.length, MAX_TRACE_ENTRIES)
  const out: unknown[] = []
  for (let i = 0; i < n; i++) out.push(copy(read(value, i), walk) ?? null)
  if (value.length > n) out.push(`[${value.length - n} more entries]`)
  return out
}

function copyObject(value: object, walk: CopyWalk): Record<string, unknown> {
  const path = walk.path
  const out: Record<string, unknown> = {}
  const keys = Object.keys(value)
  const n = Math.min(keys.length, MAX_TRACE_ENTRIES)
  for (let i = 0; i < n; i++) {
    const key = keys[i] as string
    path.push(key)
    const field = redacted(walk.redaction, path) ? '[redacted]' : copy(read(value, key), walk)
    path.pop()
    // A `__proto__` key from parsed JSON stays a field: assigning it would set the copy's prototype.
    if (field !== undefined) Object.defineProperty(out, clip(key), { value: field, enumerable: true, writable: true, configurable: true })
  }
  if (keys.length > n) out['[more]'] = `${keys.length - n} more fields`
  return out
}

// A throwing getter spoils one field, not the record.
function read(value: object, key: string | number): unknown {
  try {
    return (value as Record<string | number, unknown>)[key]
  } catch (error) {
    return `[unreadable: ${clip(messageOf(error))}]`
  }
}

function redacted(redaction: Redaction, path: readonly string[]): boolean {
  for (const names of redaction) {
    if (names.length > path.length) continue
    let match = true
    for (let i = 1; i <= names.length && match; i++) match = names[names.length - i] === path[path.length - i]
    if (match) return true
  }
  return false
}
