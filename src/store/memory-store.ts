import { option, optionsContract } from '../model/options-contract.ts'
import { shownValue } from '../model/describe-value.ts'
import type { StateStore } from './state-store.ts'
import { type SyncStateStore, withSyncFace } from './sync-store.ts'
import { HoldTable } from './hold-table.ts'
import { markUnreadable } from './unreadable-value.ts'
import { checkAmount, checkKey, checkReservationTtl, checkText, checkTtl, type StoreCall, storeCalls } from './store-args.ts'

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Clock for expiries, in ms. @default Date.now */
  readonly now?: () => number
}

/** The options `memoryStore` takes, checked once. */
const MEMORY_STORE = optionsContract<MemoryStoreOptions>('memoryStore', { now: option.function() })

/** A stored value; a counter keeps its number, made a string only when `get` asks for it. Changed in place. */
interface Entry {
  value: string | number
  /** Absolute expiry time, or `undefined` for none. */
  expiresAt: number | undefined
}

/**
 * The in-process {@link StateStore}: a `Map` with lazy expiry. Every operation completes within one
 * synchronous step, which makes each of them atomic in a single Node process; the library's policies
 * call that step directly (no promise) through the store's synchronous face. Arguments are checked
 * as `redisStore` checks them: a non-string key, id or value rejects with a `TypeError`, an amount
 * or limit that is not finite (`NaN`, `Infinity`) with a `RangeError`, and nothing is stored. A
 * counter `set` to something that is not a number makes `increment`, `reserve` and `settle` reject
 * with a `TypeError` rather than read it as 0.
 *
 * @example
 * const store = memoryStore()
 * const breaker = circuitBreaker({ store })
 */
export function memoryStore(given?: MemoryStoreOptions): StateStore {
  const options = MEMORY_STORE.check(given)
  const now = options.now ?? Date.now
  const map = new Map<string, Entry>()
  // Reservations per counter key.
  const holds = new Map<string, HoldTable>()

  /** The live entry of `key`, an expired one dropped. */
  const entryOf = (key: string): Entry | undefined => {
    const entry = map.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt !== undefined && entry.expiresAt <= now()) {
      map.delete(key)
      return undefined
    }
    return entry
  }
  const read = (key: string): string | undefined => {
    const value = entryOf(key)?.value
    return typeof value === 'number' ? String(value) : value
  }
  /** Stores `value` under `key`, in the entry already there when there is one (no allocation per write). */
  const put = (key: string, value: string | number, expiresAt: number | undefined): void => {
    const entry = map.get(key)
    if (entry === undefined) map.set(key, { value, expiresAt })
    else {
      entry.value = value
      entry.expiresAt = expiresAt
    }
  }
  const write = (key: string, value: string, ttlMs: number | undefined): void => put(key, value, ttlMs === undefined ? undefined : now() + ttlMs)

  /**
   * The number under `key`, absent = 0. A value `set` there that is not a finite number throws a
   * `TypeError` (the operation rejects, nothing written): read as 0, it would wipe what was spent.
   */
  const counter = (key: string, at: StoreCall): number => {
    const value = entryOf(key)?.value
    if (typeof value === 'number') return value
    if (value === undefined) return 0
    const n = value.trim() === '' ? Number.NaN : Number(value)
    if (!Number.isFinite(n))
      throw markUnreadable(
        new TypeError(`memoryStore: ${at.operation} of ${shownValue(key)} finds ${shownValue(value)}, which is not a number: refused rather than read as 0`),
      )
    return n
  }
  /** `current + by`, refused (a `RangeError`, before anything changes) when it is no finite number: no store can count past it. */
  const total = (key: string, at: StoreCall, current: number, by: number): number => {
    const next = current + by
    if (Number.isFinite(next)) return next
    throw new RangeError(
      `memoryStore: ${at.operation} of ${shownValue(key)} would take the counter past the largest number (overflow): refused, the counter left as it was`,
    )
  }
  /** Writes `next` (a {@link total} of the counter read in the same step) under `key`. */
  const add = (key: string, next: number, ttlMs: number | undefined): number => {
    // Without a ttl the counter keeps its expiry (none once it expired: `counter` dropped it).
    put(key, next, ttlMs === undefined ? map.get(key)?.expiresAt : now() + ttlMs)
    return next
  }

  const sync: SyncStateStore = {
    get(key) {
      checkKey(AT.get, key)
      return read(key)
    },
    set(key, value, ttlMs) {
      checkKey(AT.set, key)
      checkText(AT.set, key, 'value', value)
      checkTtl(AT.set, key, ttlMs)
      write(key, value, ttlMs)
    },
    increment(key, by, ttlMs) {
      checkKey(AT.increment, key)
      checkAmount(AT.increment, key, 'amount', by)
      checkTtl(AT.increment, key, ttlMs)
      return add(key, total(key, AT.increment, counter(key, AT.increment), by), ttlMs)
    },
    compareAndSet(key, expected, next, ttlMs) {
      checkKey(AT.compareAndSet, key)
      if (expected !== undefined) checkText(AT.compareAndSet, key, 'expected', expected)
      checkText(AT.compareAndSet, key, 'next', next)
      checkTtl(AT.compareAndSet, key, ttlMs)
      if (read(key) !== expected) return false
      write(key, next, ttlMs)
      return true
    },
    reserve(key, id, amount, limit, ttlMs) {
      checkKey(AT.reserve, key)
      checkText(AT.reserve, key, 'id', id)
      checkAmount(AT.reserve, key, 'amount', amount)
      checkAmount(AT.reserve, key, 'limit', limit)
      checkReservationTtl(AT.reserve, key, ttlMs)
      const spent = counter(key, AT.reserve)
      const h = holds.get(key)
      // One clock read for the whole reserve, as it is one atomic step.
      const t = now()
      const others = h === undefined ? 0 : h.liveSum(t)
      const granted = spent + others + amount <= limit
      if (granted) {
        let table = h
        if (table === undefined) holds.set(key, (table = new HoldTable()))
        // An empty table is kept: the next reservation of this counter reuses it.
        table.put(id, amount, t + ttlMs)
      }
      return { granted, spent, held: others }
    },
    settle(key, id, amount, ttlMs) {
      checkKey(AT.settle, key)
      checkText(AT.settle, key, 'id', id)
      checkAmount(AT.settle, key, 'amount', amount)
      checkTtl(AT.settle, key, ttlMs)
      // Read first: a counter that cannot be read fails the settle before the reservation is released.
      const next = total(key, AT.settle, counter(key, AT.settle), amount)
      holds.get(key)?.release(id)
      return add(key, next, ttlMs)
    },
  }

  const store: StateStore = {
    get: (key) => attempt(() => sync.get(key)),
    set: (key, value, ttlMs) => attempt(() => sync.set(key, value, ttlMs)),
    increment: (key, by, ttlMs) => attempt(() => sync.increment(key, by, ttlMs)),
    compareAndSet: (key, expected, next, ttlMs) => attempt(() => sync.compareAndSet(key, expected, next, ttlMs)),
    reserve: (key, id, amount, limit, ttlMs) => attempt(() => sync.reserve(key, id, amount, limit, ttlMs)),
    settle: (key, id, amount, ttlMs) => attempt(() => sync.settle(key, id, amount, ttlMs)),
  }
  return withSyncFace(store, sync)
}

const AT = storeCalls('memoryStore')

/** The operation's result as a promise; a refused argument as a rejection, never a synchronous throw. */
function attempt<T>(operation: () => T): Promise<T> {
  try {
    return Promise.resolve(operation())
  } catch (error) {
    return Promise.reject(error)
  }
}
