import { optionsObject } from '../model/options-object.ts'
import type { StateStore } from './state-store.ts'

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
 * synchronous step, which makes each of them atomic in a single Node process.
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
    get: (key) => Promise.resolve(read(key)),
    set(key, value, ttlMs) {
      write(key, value, ttlMs)
      return Promise.resolve()
    },
    increment: (key, by, ttlMs) => Promise.resolve(add(key, by, ttlMs)),
    compareAndSet(key, expected, next, ttlMs) {
      if (read(key) !== expected) return Promise.resolve(false)
      write(key, next, ttlMs)
      return Promise.resolve(true)
    },
    reserve(key, id, amount, limit, ttlMs) {
      const spent = counter(key)
      const others = held(key)
      const granted = spent + others + amount <= limit
      if (granted) {
        const live = holds.get(key) ?? new Map<string, Hold>()
        live.set(id, { amount, expiresAt: now() + ttlMs })
        holds.set(key, live)
      }
      return Promise.resolve({ granted, spent, held: others })
    },
    settle(key, id, amount, ttlMs) {
      holds.get(key)?.delete(id)
      return Promise.resolve(add(key, amount, ttlMs))
    },
  }
}
