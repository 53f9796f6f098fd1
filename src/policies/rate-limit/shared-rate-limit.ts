import { keyPart } from '../../model/key-part.ts'
import { positiveInteger } from '../../model/assert-number.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import { positiveInteger as positiveIntegerCheck } from '../option-checks.ts'
import { STATE_STORE_METHODS, type StateStore } from '../../store/state-store.ts'
import { shownValue, typeName } from '../../model/describe-value.ts'
import { markUnreadable } from '../../store/unreadable-value.ts'
import { assertMethods, assertNonEmptyString } from '../../model/options-object.ts'
import type { RateLimitPermit } from './rate-limit-permit.ts'

/** Options of {@link sharedRateLimit}. */
export interface SharedRateLimitOptions {
  /** Where the windows are counted; share it across gates and processes. */
  readonly store: StateStore
  /** Key prefix of this limit's counters, e.g. `rate:openai`. */
  readonly key: string
  /** Calls allowed per window (per provider). */
  readonly limit: number
  /** Length of a window, in ms. */
  readonly windowMs: number
  /**
   * Clock in ms. Windows are aligned on it (`floor(now / windowMs)`), so every process must use
   * wall-clock time to share them.
   * @default Date.now
   */
  readonly now?: () => number
}

/** A fixed-window call counter shared by every gate and process that uses the same store and key. */
export interface SharedRateLimit {
  readonly key: string
  readonly limit: number
  readonly windowMs: number
  /**
   * Takes one call from the current window of `subject` (the gate passes the provider's name, so
   * each provider has its own window). Denied calls take nothing that matters: the window is full.
   */
  acquire(subject?: string): Promise<RateLimitPermit>
}

/** The options `sharedRateLimit` takes, checked once; `windowMs` is a duration below 2^31 ms. */
const SHARED_RATE_LIMIT = optionsContract<SharedRateLimitOptions>('sharedRateLimit', {
  store: option.any(),
  key: option.any(),
  limit: positiveIntegerCheck,
  windowMs: option.duration(),
  now: option.any(),
})

/**
 * A rate limit shared across runs, gates and processes: at most `limit` calls per `windowMs` per
 * provider, counted with one atomic `increment` per call in a fixed window aligned on the clock.
 * (A fixed window can admit up to twice `limit` across a window boundary; it is exact within one.)
 *
 * Given as `GateConfig.rateLimit`, the gate takes a slot before every provider call. A full window
 * ends the attempt at once, without calling the provider, with a `ProviderError` of kind
 * `rate-limit` whose `retryAfterMs` is the time to the window's end. `retryTransient()` then waits
 * the window out (when it is within its `maxRetryAfterMs`) and `failoverRule()` moves to the next
 * provider, whose window is its own; with neither the run fails fast with kind `rate-limit`. A
 * store that fails lets the call through: like the breaker, the limit is advisory.
 *
 * @example
 * const rateLimit = sharedRateLimit({ store: redisStore(client), key: 'rate:team-a', limit: 500, windowMs: 60_000 })
 * createGate({ providers: [primary, backup], rateLimit, postDecide: [retryTransient(), failoverRule()] })
 */
export function sharedRateLimit(given: SharedRateLimitOptions): SharedRateLimit {
  if (typeof given !== 'object' || given === null) {
    throw new TypeError(`sharedRateLimit: expected { store, key, limit, windowMs }, got ${typeName(given)}`)
  }
  const options = SHARED_RATE_LIMIT.check(given)
  const { store, key, limit, windowMs } = options
  assertMethods(store, STATE_STORE_METHODS, 'sharedRateLimit: store', 'a StateStore (memoryStore(), redisStore(...))')
  assertNonEmptyString(key, 'sharedRateLimit: key')
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('sharedRateLimit: now must be a function returning milliseconds')
  positiveInteger(limit, 'sharedRateLimit: limit')
  if (windowMs === undefined) throw new RangeError('sharedRateLimit: windowMs must be a whole number of milliseconds, got undefined')
  const now = options.now ?? Date.now
  return {
    key,
    limit,
    windowMs,
    async acquire(subject = '') {
      const t: unknown = now()
      // A clock that answers no time would count every call in a window named NaN (or none): said as the clock's fault.
      if (typeof t !== 'number' || !Number.isFinite(t)) throw new TypeError(`sharedRateLimit: now() must answer a finite number of ms, got ${shownValue(t)}`)
      const window = Math.floor(t / windowMs)
      const endsIn = (window + 1) * windowMs - t
      // The counter outlives its window by one more, so a process whose clock runs a little behind
      // still finds it rather than a fresh count.
      // The windows of one subject share a hash tag: one cluster slot, one epoch for the state-lost check.
      // The subject is written as a key part: key `rl` with provider `a:b` never counts with key `rl:a` and provider `b`.
      const counter = `{${key}:${keyPart(subject)}}:${window}`
      const count = await store.increment(counter, 1, endsIn + windowMs)
      // A count that is no number of calls (a store answering NaN, a string, a negative) is a store that cannot answer, as the breaker's unreadable record is: never a full window, never an empty one.
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
        throw markUnreadable(new TypeError(`sharedRateLimit: the store counted ${shownValue(count)} calls under ${shownValue(counter)}, which is not a count`))
      }
      if (count <= limit) return { allowed: true, remaining: limit - count }
      return { allowed: false, retryAfterMs: Math.max(1, Math.ceil(endsIn)) }
    },
  }
}
