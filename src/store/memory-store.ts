import { optionsObject } from '../model/options-object.ts'
import type { StateStore } from './state-store.ts'
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

/**
 * The in-process {@link StateStore}: a `Map` with lazy expiry. Every operation completes within one
 * synchronous step, which makes each of them atomic in a single Node process. Arguments are checked
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
  // Reservations per counter key: id -> amount and absolute expiry.
  const holds = new Map<string, Map<string, Hold>>()

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
  /** The sum of the live reservations of `key`; expired ones are dropped. */
  const held = (key: string): number => {
    const live = holds.get(key)
    if (live === undefined) return 0
    const t = now()
    let sum = 0
    for (const [id, hold] of live) {
      if (hold.expiresAt <= t) live.delete(id)
      else sum += hold.amount
    }
    if (live.size === 0) holds.delete(key)
    return sum
  }

  return {
    get: (key) =>
      attempt(() => {
        checkKey(AT.get, key)
        return read(key)
      }),
    set: (key, value, ttlMs) =>
      attempt(() => {
        checkKey(AT.set, key)
        checkText(AT.set, key, 'value', value)
        checkTtl(AT.set, key, ttlMs)
        write(key, value, ttlMs)
      }),
    increment: (key, by, ttlMs) =>
      attempt(() => {
        checkKey(AT.increment, key)
        checkAmount(AT.increment, key, 'amount', by)
        checkTtl(AT.increment, key, ttlMs)
        return add(key, by, ttlMs)
      }),
    compareAndSet: (key, expected, next, ttlMs) =>
      attempt(() => {
        checkKey(AT.compareAndSet, key)
        if (expected !== undefined) checkText(AT.compareAndSet, key, 'expected', expected)
        checkText(AT.compareAndSet, key, 'next', next)
        checkTtl(AT.compareAndSet, key, ttlMs)
        if (read(key) !== expected) return false
        write(key, next, ttlMs)
        return true
      }),
    reserve: (key, id, amount, limit, ttlMs) =>
      attempt(() => {
        checkKey(AT.reserve, key)
        checkText(AT.reserve, key, 'id', id)
        checkAmount(AT.reserve, key, 'amount', amount)
        checkAmount(AT.reserve, key, 'limit', limit)
        checkReservationTtl(AT.reserve, key, ttlMs)
        const spent = counter(key)
        const others = held(key)
        const granted = spent + others + amount <= limit
        if (granted) {
          const live = holds.get(key) ?? new Map<string, Hold>()
          live.set(id, { amount, expiresAt: now() + ttlMs })
          holds.set(key, live)
        }
        return { granted, spent, held: others }
      }),
    settle: (key, id, amount, ttlMs) =>
      attempt(() => {
        checkKey(AT.settle, key)
        checkText(AT.settle, key, 'id', id)
        checkAmount(AT.settle, key, 'amount', amount)
        checkTtl(AT.settle, key, ttlMs)
        holds.get(key)?.delete(id)
        return add(key, amount, ttlMs)
      }),
  }
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
