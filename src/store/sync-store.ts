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
  /** As `StateStore.reserve`. */
  reserve(key: string, id: string, amount: number, limit: number, ttlMs: number): Reservation
  settle(key: string, id: string, amount: number, ttlMs?: number): number
}

// The faces of the stores the library made, by the store object itself: a wrapper of one (a spread
// copy, a Proxy) is another object, so it is awaited as any store, its own methods called.
const faces = new WeakMap<StateStore, SyncStateStore>()

/** Gives `store` (made by the library) its synchronous face. */
export function withSyncFace(store: StateStore, face: SyncStateStore): StateStore {
  faces.set(store, face)
  return store
}

/** The synchronous face of `store`, when it is one the library made with one (`memoryStore()`). */
export function syncStore(store: StateStore): SyncStateStore | undefined {
  return faces.get(store)
}
