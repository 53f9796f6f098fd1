import { option, type OptionCheck, optionsContract } from '../model/options-contract.ts'
import { jitterRandom } from './jitter-source.ts'
import { positiveNumber } from './option-checks.ts'

/** Options of {@link exponentialBackoff}. */
export interface BackoffOptions {
  /** First delay in ms. @default 250 */
  readonly initialMs?: number
  /** Upper bound of any delay in ms. @default 30_000 */
  readonly maxMs?: number
  /** Growth factor per retry. @default 2 */
  readonly factor?: number
  /** Share of each delay that is randomised (0 = none, 1 = "full jitter"). @default 0.5 */
  readonly jitter?: number
  /** Source of randomness in [0, 1), for deterministic tests (an answer outside [0, 1] is clamped, NaN waits the whole delay). @default Math.random (seeded from the run's id and attempt in a durable run) */
  readonly random?: () => number
}

/** The options `exponentialBackoff` takes, checked once: delays are durations below 2^31 ms. */
export const BACKOFF_OPTIONS = optionsContract<BackoffOptions>('exponentialBackoff', {
  initialMs: option.duration(0),
  maxMs: option.duration(0),
  factor: positiveNumber,
  jitter: option.where('a share from 0 to 1', (v) => typeof v === 'number' && v >= 0 && v <= 1),
  random: option.function(),
})

/** A `backoff` option: a schedule of the caller's own, or the options of {@link exponentialBackoff}. */
export const backoffCheck: OptionCheck = (value) => (typeof value === 'function' ? undefined : option.nested(BACKOFF_OPTIONS)(value))

/** A delay schedule: the wait before retry number `retry` (0 for the first retry). */
export type Backoff = (retry: number) => number

/**
 * Exponential backoff with jitter: `initialMs * factor^retry`, capped at `maxMs`, of which a
 * `jitter` share is randomised so that a fleet of clients does not retry in lockstep. Options are
 * checked here: an unknown key throws a `TypeError`; a delay that is not whole milliseconds from 0
 * to 2^31-1, a factor not above 0, or a jitter outside [0, 1] throws a `RangeError`.
 */
export function exponentialBackoff(options: BackoffOptions = {}): Backoff {
  const checked = BACKOFF_OPTIONS.check(options)
  const initial = checked.initialMs ?? 250
  const max = checked.maxMs ?? 30_000
  const factor = checked.factor ?? 2
  const jitter = checked.jitter ?? 0.5
  const random = checked.random ?? jitterRandom
  return function backoff(retry) {
    // A retry number that is no number (NaN) is the first retry: never a NaN delay.
    const base = Math.min(max, initial * factor ** (Number.isNaN(retry) ? 0 : Math.max(0, retry)))
    return Math.round(base * (1 - jitter) + base * jitter * share(random()))
  }
}

/** A `random()` answer as a share of the jitter: one outside [0, 1] is kept inside it, and one that is no number waits the whole base, so no delay passes `maxMs`. */
function share(r: unknown): number {
  return typeof r === 'number' && r >= 0 ? Math.min(r, 1) : typeof r === 'number' && r < 0 ? 0 : 1
}
