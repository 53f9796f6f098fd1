/**
 * One options object the library takes from a caller: a factory's options, a per-call options
 * object (`gate.run(request, options)`), a request, a nested object (`window`). The structure test
 * `every-options-entry.test.ts` calls `call` with a misspelt key for every key of `keys` and expects
 * a `TypeError` with "did you mean" naming that key; with every value of a hostile list for each key
 * of `durations`; and requires every exported function of every package entry to be covered by an
 * entry or listed as taking no options.
 */
export interface OptionsEntry {
  /** What the entry is, as its errors name it: `'redisStore'`, `'gate.run options'`, `'window'`. */
  readonly name: string
  /** The exported functions this entry stands for, as `'<subpath>:<export>'` (`'.:createGate'`, `'redis:redisStore'`). */
  readonly covers?: readonly string[]
  /** Every key the options object takes. */
  readonly keys: readonly string[]
  /** Keys holding a duration in milliseconds: 2^31, -1, NaN, Infinity, 1.5 and '100' must be refused. */
  readonly durations?: readonly string[]
  /** Keys holding any other number: NaN, Infinity and '100' must be refused. */
  readonly numbers?: readonly string[]
  /**
   * Calls the entry with `options` put where the options object goes (merged over whatever else a
   * valid call needs). It may return a promise; a refused option must throw or reject before any
   * side effect.
   */
  readonly call: (options: Record<string, unknown>) => unknown
}
