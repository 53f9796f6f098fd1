import type { Reservation, StateStore } from './state-store.ts'

/**
 * The synchronous face of an in-process {@link StateStore}: the same operations with the same
 * checks, answered at once (a refusal is thrown, not rejected). The policies use it when their store
 * has one, so a breaker or a budget on `memoryStore()` takes no promise hop; a store without one
 * (Redis, a user's own) is awaited as usual.
 */
export interface SyncStateStore {
  get(key: string): string | undefined
  set(key: string, value: string, ttlMs?: number): void
  increment(key: string, by: number, ttlMs?: number): number
  compareAndSet(key: string, expected: string | undefined, next: string, ttlMs?: number): boolean
  reserve(key: string, id: string, amount: number, limit: number, ttlMs: number): Reservation
  settle(key: string, id: string, amount: number, ttlMs?: number): number
}

/** Where a store made by the library keeps its synchronous face; not exported from the package. */
export const SYNC_STORE: unique symbol = Symbol('reliability-gate.sync-store')

/** The synchronous face of `store`, when it has one (`memoryStore()`). */
export function syncStore(store: StateStore): SyncStateStore | undefined {
  return (store as StateStore & { readonly [SYNC_STORE]?: SyncStateStore })[SYNC_STORE]
}
