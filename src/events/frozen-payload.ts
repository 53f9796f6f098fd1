import { messageOf } from '../model/message-of.ts'

// Objects known to be frozen deeply: large ones (see REMEMBERED_FROM) and the frozen copies, walked
// once however many events carry them (a run's frozen messages ride on every `attempt_start`).
// `Object.isFrozen` is not enough: a frozen request may hold tool specs that are not.
const deeplyFrozen = new WeakSet<object>()
// The caller's own objects an event carries (a run's metadata, a tool's result): copied and the copy
// frozen, so a listener can change neither them nor what the next listener or event sees, and the
// caller's object stays theirs to edit. Copied for each event, never remembered by the caller's
// object: a caller reusing one metadata object, edited between runs (`meta.tenant = next`), must see
// each run's own (a run's gate events carry the run's copy, which is never copied again).
const COPIED: ReadonlySet<string> = new Set(['metadata', 'result'])

/**
 * Freezes an event payload before any listener sees it: the payload itself (a fresh object per
 * emit) and, deeply, every plain object and array it reaches (the response, its tool calls and
 * usage, the request, the retry tail, the issues), which are the same objects the caller's result
 * holds. A listener that edits a payload then throws in strict mode (reported as `listener_error`)
 * and changes nothing the caller or a later event sees. `error` values are the thrower's own
 * objects and pass as they are; class instances (an `AbortSignal`) too.
 *
 * @internal
 */
export function freezePayload<P extends object>(payload: P): P {
  const fields = payload as Record<string, unknown>
  for (const key in fields) {
    const value = fields[key]
    if (typeof value !== 'object' || value === null || key === 'error') continue
    if (COPIED.has(key)) fields[key] = frozenCopy(value)
    else freezeDeep(value, 0)
  }
  return Object.freeze(payload)
}

/** Where reading the caller's value threw (a getter, a Proxy), while copying: the copy holds its `text`. */
class Unreadable {
  readonly text: string
  constructor(error: unknown) {
    this.text = `[unreadable: ${messageOf(error).slice(0, 1000)}]`
  }
}

// The fields of a copy that hold such a marker, by the copy: what a span leaves out, a trace file writes.
const unreadableFields = new WeakMap<object, Set<string>>()

/**
 * True when field `key` of a frozen copy (a run's metadata) is the `"[unreadable: <message>]"` marker
 * of a value that could not be read.
 *
 * @internal
 */
export function isUnreadableField(copy: object, key: string): boolean {
  return unreadableFields.get(copy)?.has(key) === true
}

/** The value a copy holds: an unreadable value's marker text, noted against its field. */
function held(copy: object, key: string, value: unknown): unknown {
  if (!(value instanceof Unreadable)) return value
  const keys = unreadableFields.get(copy) ?? new Set<string>()
  unreadableFields.set(copy, keys.add(key))
  return value.text
}

/**
 * A run's metadata as the run hands it to user code (a link's `ctx.metadata`) and to its events: a
 * frozen copy of it as it is when the run starts, so an edit in place reaches neither the caller's
 * object nor a later reader, and an edit the caller makes for its next run changes nothing of this
 * one. Metadata that cannot be read at all (a Proxy refusing its keys) stays as it is.
 *
 * @internal
 */
export function frozenMetadata<M extends object>(metadata: M): M {
  const copy = frozenCopy(metadata)
  return typeof copy === 'object' && copy !== null ? (copy as M) : metadata
}

function frozenCopy(value: object): unknown {
  if (deeplyFrozen.has(value)) return value
  let copy = plainCopy(value, new Map(), 0)
  if (copy instanceof Unreadable) copy = copy.text
  if (typeof copy === 'object' && copy !== null) {
    freezeDeep(copy, 0)
    // The copy may ride on later events (a run's metadata): known as frozen, never copied again.
    deeplyFrozen.add(copy)
  }
  return copy
}

/**
 * A copy of the plain objects and arrays of a value, cycles kept as cycles (class instances are
 * shared). It never throws: a field whose getter throws, or a Proxy that refuses to be read, is
 * copied as `"[unreadable: <message>]"` (a throw here would leave the rest of the payload unfrozen).
 */
function plainCopy(value: unknown, copies: Map<object, unknown>, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 256) return value
  const done = copies.get(value)
  if (done !== undefined) return done
  try {
    if (Array.isArray(value)) {
      const copy: unknown[] = []
      copies.set(value, copy)
      const length = value.length
      for (let i = 0; i < length; i++) copy.push(held(copy, String(i), plainCopy(field(value, i), copies, depth + 1)))
      return copy
    }
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) return value
    const copy: Record<string, unknown> = proto === null ? Object.create(null) : {}
    copies.set(value, copy)
    for (const key of Object.keys(value)) {
      // `__proto__` stays an own data field, never the copy's prototype.
      const inner = held(copy, key, plainCopy(field(value, key), copies, depth + 1))
      Object.defineProperty(copy, key, { value: inner, enumerable: true, writable: true, configurable: true })
    }
    return copy
  } catch (error) {
    return new Unreadable(error)
  }
}

// A getter that throws spoils its own field, not the copy.
function field(value: object, key: string | number): unknown {
  try {
    return (value as Record<string | number, unknown>)[key]
  } catch (error) {
    return new Unreadable(error)
  }
}

// A structure with more fields than this is remembered once frozen deeply (a run's frozen messages ride
// on every `attempt_start`); a smaller one is walked again, which costs less than remembering it: a
// WeakSet entry for a young object costs ~360 ns (its ephemeron bookkeeping), walking a small one ~10 ns.
const REMEMBERED_FROM = 32

/**
 * Freezes a plain object or array and what it holds, in place (class instances are left alone):
 * children first, then the value, so that an object this function froze is frozen all the way down.
 */
function freezeDeep(value: object, depth: number): void {
  if (depth > 256 || deeplyFrozen.has(value)) return
  let count = 0
  let whole = false
  try {
    if (Array.isArray(value)) {
      // An index loop: `for...in` over an array makes a string per index.
      count = value.length
      for (let i = 0; i < count; i++) {
        const inner: unknown = value[i]
        if (typeof inner === 'object' && inner !== null) freezeDeep(inner, depth + 1)
      }
    } else {
      const proto: unknown = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) return
      const fields = value as Record<string, unknown>
      const keys = Object.keys(fields)
      count = keys.length
      for (let i = 0; i < count; i++) {
        const inner = fields[keys[i] as string]
        if (typeof inner === 'object' && inner !== null) freezeDeep(inner, depth + 1)
      }
    }
    whole = true
  } catch {
    // A value from user code that throws when read (a Proxy, a getter): it is frozen as far as it can be, and a
    // throw here must not leave its parent and the rest of the payload unfrozen.
  }
  try {
    Object.freeze(value)
  } catch {
    // A Proxy whose trap refuses: left as it is.
  }
  if (whole && count >= REMEMBERED_FROM) deeplyFrozen.add(value)
}
