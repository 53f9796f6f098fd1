import { shownValue, typeName } from '../model/describe-value.ts'

/** Which store method is being checked: `{ store: 'memoryStore', operation: 'increment' }`. */
export interface StoreCall {
  readonly store: string
  readonly operation: string
}

/*
 * The argument checks of every StateStore method, shared by `memoryStore` and `redisStore` so both
 * refuse the same calls before touching any state: a key, an id or a value that is not a string is
 * a TypeError; an amount or a limit that is not a finite number (NaN, Infinity) is a RangeError
 * rather than stored, since a counter holding one reads back as 0 and wipes what was spent.
 */

/** `key` is a string. */
export function checkKey(at: StoreCall, key: unknown): asserts key is string {
  if (typeof key !== 'string') throw new TypeError(`${at.store}: ${at.operation} needs a string key, got ${typeName(key)}`)
}

/** `value`, the argument `name`, is a string. */
export function checkText(at: StoreCall, key: string, name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') throw new TypeError(`${where(at, key)} needs ${name} as a string, got ${typeName(value)}`)
}

/** `value`, the argument `name`, is a finite number. */
export function checkAmount(at: StoreCall, key: string, name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number') throw new TypeError(`${where(at, key)} needs ${name} as a number, got ${typeName(value)}`)
  if (!Number.isFinite(value)) throw new RangeError(`${where(at, key)} needs a finite ${name}, got ${value}`)
}

/** An optional ttl: absent, or a number other than `NaN` (`Infinity` keeps the key, 0 or less expires it at once). */
export function checkTtl(at: StoreCall, key: string, ttlMs: unknown): asserts ttlMs is number | undefined {
  if (ttlMs === undefined) return
  if (typeof ttlMs !== 'number') throw new TypeError(`${where(at, key)} needs ttlMs as a number, got ${typeName(ttlMs)}`)
  if (Number.isNaN(ttlMs)) throw new RangeError(`${where(at, key)} needs ttlMs as a number, got NaN`)
}

/** A reservation's ttl: finite and above 0, so a reservation held by a process that crashed expires. */
export function checkReservationTtl(at: StoreCall, key: string, ttlMs: unknown): asserts ttlMs is number {
  if (typeof ttlMs !== 'number') throw new TypeError(`${where(at, key)} needs ttlMs as a number, got ${typeName(ttlMs)}`)
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) throw new RangeError(`${where(at, key)} needs a finite ttlMs above 0, got ${ttlMs}`)
}

/** The store calls of one store, by operation. */
export function storeCalls(store: string): Readonly<Record<'get' | 'set' | 'increment' | 'compareAndSet' | 'reserve' | 'settle', StoreCall>> {
  const at = (operation: string): StoreCall => Object.freeze({ store, operation })
  return Object.freeze({
    get: at('get'),
    set: at('set'),
    increment: at('increment'),
    compareAndSet: at('compareAndSet'),
    reserve: at('reserve'),
    settle: at('settle'),
  })
}

// The key as the message shows it: quoted, control characters escaped, cut at 40 characters.
function where(at: StoreCall, key: string): string {
  return `${at.store}: ${at.operation} of ${shownValue(key)}`
}
