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

/**
 * The in-process {@link StateStore}: a `Map` with lazy expiry. Every operation completes within one
 * synchronous step, which makes each of them atomic in a single Node process.
 *
 * @example
 * const store = memoryStore()
 * const breaker = circuitBreaker({ store })
 */
export function memoryStore(options: MemoryStoreOptions = {}): StateStore {
  const now = options.now ?? Date.now
  const map = new Map<string, Entry>()

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

  return {
    get: (key) => Promise.resolve(read(key)),
    set(key, value, ttlMs) {
      write(key, value, ttlMs)
      return Promise.resolve()
    },
    increment(key, by, ttlMs) {
      const current = Number(read(key) ?? 0)
      const next = (Number.isFinite(current) ? current : 0) + by
      const expiresAt = ttlMs === undefined ? map.get(key)?.expiresAt : now() + ttlMs
      map.set(key, { value: String(next), expiresAt })
      return Promise.resolve(next)
    },
    compareAndSet(key, expected, next, ttlMs) {
      if (read(key) !== expected) return Promise.resolve(false)
      write(key, next, ttlMs)
      return Promise.resolve(true)
    },
  }
}
