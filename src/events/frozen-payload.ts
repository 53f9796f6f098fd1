// Objects already frozen deeply: each is walked once, however many events carry it (a run's frozen
// messages ride on every `attempt_start`). `Object.isFrozen` is not enough: a frozen request may hold
// tool specs that are not.
const deeplyFrozen = new WeakSet<object>()
// The caller's own objects an event carries (a run's metadata, a tool's result): copied once and the
// copy frozen, so a listener can change neither them nor what the next listener or event sees, and
// the caller's object stays theirs to edit.
const frozenCopies = new WeakMap<object, unknown>()
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

function frozenCopy(value: object): unknown {
  if (deeplyFrozen.has(value)) return value
  let copy = frozenCopies.get(value)
  if (copy === undefined) {
    copy = plainCopy(value, new Map(), 0)
    if (typeof copy === 'object' && copy !== null) freezeDeep(copy, 0)
    frozenCopies.set(value, copy)
  }
  return copy
}

/** A copy of the plain objects and arrays of a value, cycles kept as cycles (class instances are shared). */
function plainCopy(value: unknown, copies: Map<object, unknown>, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 256) return value
  const done = copies.get(value)
  if (done !== undefined) return done
  if (Array.isArray(value)) {
    const copy: unknown[] = []
    copies.set(value, copy)
    for (const item of value) copy.push(plainCopy(item, copies, depth + 1))
    return copy
  }
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return value
  const copy: Record<string, unknown> = proto === null ? Object.create(null) : {}
  copies.set(value, copy)
  for (const key of Object.keys(value)) {
    // `__proto__` stays an own data field, never the copy's prototype.
    Object.defineProperty(copy, key, {
      value: plainCopy((value as Record<string, unknown>)[key], copies, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return copy
}

/** Freezes a plain object or array and what it holds, in place (class instances are left alone). */
function freezeDeep(value: object, depth: number): void {
  if (deeplyFrozen.has(value) || depth > 256) return
  if (!Array.isArray(value)) {
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) return
  }
  deeplyFrozen.add(value)
  Object.freeze(value)
  const fields = value as Record<string, unknown>
  for (const key of Object.keys(value)) {
    const inner = fields[key]
    if (typeof inner === 'object' && inner !== null) freezeDeep(inner, depth + 1)
  }
}
