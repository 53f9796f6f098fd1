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
 * `jitter` share is randomised so that a fleet of clients does not retry in lockstep.
 */
export function exponentialBackoff(options: BackoffOptions = {}): Backoff {
  const initial = options.initialMs ?? 250
  const max = options.maxMs ?? 30_000
  const factor = options.factor ?? 2
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0.5))
  const random = options.random ?? Math.random
  return function backoff(retry) {
    const base = Math.min(max, initial * factor ** Math.max(0, retry))
    return Math.round(base * (1 - jitter) + base * jitter * random())
  }
}
