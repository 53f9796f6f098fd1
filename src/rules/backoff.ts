import { nonNegativeNumber, positiveNumber } from '../model/assert-number.ts'

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
  /** Source of randomness in [0, 1), for deterministic tests. @default Math.random */
  readonly random?: () => number
}

/** A delay schedule: the wait before retry number `retry` (0 for the first retry). */
export type Backoff = (retry: number) => number

/**
 * Exponential backoff with jitter: `initialMs * factor^retry`, capped at `maxMs`, of which a
 * `jitter` share is randomised so that a fleet of clients does not retry in lockstep. Options are
 * checked here: a delay that is not a finite number 0 or above, a factor not above 0, or a jitter
 * outside [0, 1] throws a `RangeError`.
 */
export function exponentialBackoff(options: BackoffOptions = {}): Backoff {
  const initial = nonNegativeNumber(options.initialMs, 'exponentialBackoff: initialMs', 250)
  const max = nonNegativeNumber(options.maxMs, 'exponentialBackoff: maxMs', 30_000)
  const factor = positiveNumber(options.factor, 'exponentialBackoff: factor', 2)
  const jitter = nonNegativeNumber(options.jitter, 'exponentialBackoff: jitter', 0.5)
  if (jitter > 1) throw new RangeError(`exponentialBackoff: jitter must be a share from 0 to 1, got ${jitter}`)
  const random = options.random ?? Math.random
  return function backoff(retry) {
    const base = Math.min(max, initial * factor ** Math.max(0, retry))
    return Math.round(base * (1 - jitter) + base * jitter * random())
  }
}
