import { optionsObject } from '../model/options-object.ts'
import type { StateStore } from './state-store.ts'
import { type SyncStateStore, withSyncFace } from './sync-store.ts'
import { checkAmount, checkKey, checkReservationTtl, checkText, checkTtl, storeCalls } from './store-args.ts'

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Clock for expiries, in ms. @default Date.now */
  readonly now?: () => number
}

interface Entry {
  readonly value: string
  /** Absolute expiry time, or `undefined` for none. */
  readonly expiresAt: number | undefined
}

interface Hold {
  readonly amount: number
  readonly expiresAt: number
}

/** The live reservations of one counter, with their sum and the earliest expiry among them. */
interface Holds {
  readonly byId: Map<string, Hold>
  sum: number
  nextExpiry: number
}

/**
 * The in-process {@link StateStore}: a `Map` with lazy expiry. Every operation completes within one
 * synchronous step, which makes each of them atomic in a single Node process; the library's policies
 * call that step directly (no promise) through the store's synchronous face. Arguments are checked
 * as `redisStore` checks them: a non-string key, id or value rejects with a `TypeError`, an amount
 * or limit that is not finite (`NaN`, `Infinity`) with a `RangeError`, and nothing is stored.
 *
 * @example
 * const store = memoryStore()
 * const breaker = circuitBreaker({ store })
 */
export function memoryStore(given?: MemoryStoreOptions): StateStore {
  const options = optionsObject(given, 'memoryStore')
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('memoryStore: now must be a function returning milliseconds')
  const now = options.now ?? Date.now
  const map = new Map<string, Entry>()
  // Reservations per counter key.
  const holds = new Map<string, Holds>()

  const read = (key: string): string | undefined => {
    const entry = map.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt !== undefined && entry.expiresAt <= now()) {
      map.delete(key)
      return undefined
    }
    return entry.value
  }
  const write = (key: string, value: string, ttlMs: number | undefined): void => {
    map.set(key, { value, expiresAt: ttlMs === undefined ? undefined : now() + ttlMs })
  }

  const counter = (key: string): number => {
    const n = Number(read(key) ?? 0)
    return Number.isFinite(n) ? n : 0
  }
  const add = (key: string, by: number, ttlMs: number | undefined): number => {
    const next = counter(key) + by
    const expiresAt = ttlMs === undefined ? map.get(key)?.expiresAt : now() + ttlMs
    map.set(key, { value: String(next), expiresAt })
    return next
  }
  /** The live reservations of `key`, expired ones dropped (a walk only once one may have expired). */
  const live = (key: string): Holds | undefined => {
    const h = holds.get(key)
    if (h === undefined) return undefined
    const t = now()
    if (h.nextExpiry > t) return h
    let sum = 0
    let nextExpiry = Number.POSITIVE_INFINITY
    for (const [id, hold] of h.byId) {
      if (hold.expiresAt <= t) h.byId.delete(id)
      else {
        sum += hold.amount
        if (hold.expiresAt < nextExpiry) nextExpiry = hold.expiresAt
      }
    }
    h.sum = sum
    h.nextExpiry = nextExpiry
    return h
  }
  const release = (key: string, id: string): void => {
    const h = holds.get(key)
    const hold = h?.byId.get(id)
    if (h === undefined || hold === undefined) return
    h.byId.delete(id)
    // An empty set of holds is kept: the next reservation of this counter reuses it.
    h.sum = h.byId.size === 0 ? 0 : h.sum - hold.amount
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
      return add(key, by, ttlMs)
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
      const spent = counter(key)
      const h = live(key)
      const others = h === undefined ? 0 : h.sum
      const granted = spent + others + amount <= limit
      if (granted) {
        const expiresAt = now() + ttlMs
        const set = h ?? { byId: new Map<string, Hold>(), sum: 0, nextExpiry: Number.POSITIVE_INFINITY }
        if (h === undefined) holds.set(key, set)
        const previous = set.byId.get(id)
        set.byId.set(id, { amount, expiresAt })
        set.sum += amount - (previous?.amount ?? 0)
        if (expiresAt < set.nextExpiry) set.nextExpiry = expiresAt
      }
      return { granted, spent, held: others }
    },
    settle(key, id, amount, ttlMs) {
      checkKey(AT.settle, key)
      checkText(AT.settle, key, 'id', id)
      checkAmount(AT.settle, key, 'amount', amount)
      checkTtl(AT.settle, key, ttlMs)
      release(key, id)
      return add(key, amount, ttlMs)
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
