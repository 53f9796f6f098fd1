/**
 * Where budgets and breaker state live, so that a fleet of processes can share them.
 *
 * Deliberately small: every method is one atomic operation that a Redis server can run as a single
 * command or Lua script (`GET`, `SET PX`, `INCRBYFLOAT` + `PEXPIRE`, and a compare-and-set script), so
 * a shared store never changes the engine. Values are strings, as on the wire; callers encode
 * structured state themselves.
 *
 * @example
 * const store: StateStore = memoryStore()
 * await store.increment('budget:team-a', 0.25)       // 0.25
 * await store.compareAndSet('k', undefined, 'v1')     // true: created
 * await store.compareAndSet('k', 'stale', 'v2')       // false: someone else wrote first
 */
export interface StateStore {
  /** The value under `key`, or `undefined` when absent or expired. */
  get(key: string): Promise<string | undefined>
  /** Writes `value`; with `ttlMs` the key expires after that many ms. */
  set(key: string, value: string, ttlMs?: number): Promise<void>
  /**
   * Atomically adds `by` to the number under `key` (absent counts as 0) and returns the new total.
   * With `ttlMs` the key's expiry is (re)set to that many ms.
   */
  increment(key: string, by: number, ttlMs?: number): Promise<number>
  /**
   * Atomically writes `next` only if the current value is `expected` (`undefined` = absent).
   * Returns whether it wrote: the read-modify-write primitive for state richer than a counter.
   */
  compareAndSet(key: string, expected: string | undefined, next: string, ttlMs?: number): Promise<boolean>
}
