/**
 * Where budgets and breaker state live, so that a fleet of processes can share them.
 *
 * Deliberately small: every method is one atomic operation that a Redis server can run as a single
 * command or Lua script (`GET`, `SET PX`, `INCRBYFLOAT` + `PEXPIRE`, a compare-and-set script, and
 * the reserve and settle scripts of shared budgets), so a shared store never changes the engine. Values are strings, as on the wire; callers encode
 * structured state themselves. A store refuses what it cannot store faithfully, with a rejected
 * promise and nothing written: a key, id or value that is not a string (`TypeError`), an amount or
 * limit that is not a finite number (`NaN`, `Infinity`: a `RangeError`, since a counter holding one
 * reads back as 0), a ttl that is `NaN`, an `increment` or `settle` whose total would pass the
 * largest number (it could not be read back). `memoryStore` and `redisStore` refuse the same calls. A
 * counter that holds something that is not a number (written by hand, by another application) is
 * never read as 0: `increment`, `reserve` and `settle` reject, and leave it as it is.
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
  /**
   * Atomically holds `amount` against the counter under `key` as reservation `id`, if it fits:
   * granted when the counter (absent = 0) plus every live reservation plus `amount` is at most
   * `limit`. A reservation lives `ttlMs` unless {@link settle}d first, so one held by a process that
   * crashed expires on its own. Returns the verdict with the counter and the sum of the other live
   * reservations, as they were when it was taken. The check-and-hold of a budget that never
   * overspends, however many processes share it.
   */
  reserve(key: string, id: string, amount: number, limit: number, ttlMs: number): Promise<Reservation>
  /**
   * Atomically ends reservation `id` (released whether it is live or has expired) and adds `amount`,
   * the real cost, to the counter under `key`; returns the new total. `ttlMs` sets the counter's
   * expiry as {@link increment} does. Settling with 0 just releases.
   */
  settle(key: string, id: string, amount: number, ttlMs?: number): Promise<number>
}

/** The verdict of {@link StateStore.reserve}. */
export interface Reservation {
  /** The amount is held. */
  readonly granted: boolean
  /** The counter (what was committed) when the reservation was asked for. */
  readonly spent: number
  /** The sum of the other live reservations at that moment. */
  readonly held: number
}

/** The methods the library calls on a {@link StateStore} (a custom store must have them all). */
export const STATE_STORE_METHODS: readonly string[] = Object.freeze(['get', 'set', 'increment', 'compareAndSet', 'reserve', 'settle'])
