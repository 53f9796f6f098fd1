import { option, optionsContract } from '../model/options-contract.ts'
import { nonNegativeInteger } from './option-checks.ts'
import { ERROR_KINDS, TRANSIENT_KINDS, type ErrorKind } from '../model/error-kind.ts'
import { backoffCheck, exponentialBackoff, type Backoff, type BackoffOptions } from './backoff.ts'
import type { ReliabilityRule } from './rule.ts'
import type { ReliabilityScope } from './scope.ts'

export { TRANSIENT_KINDS }

/** Options of {@link retryTransient}. */
export interface RetryTransientOptions {
  /** Retries of transient errors per run (not counting the first attempt). @default 3 */
  readonly maxRetries?: number
  /** Delay schedule, or options of the default exponential backoff with jitter. */
  readonly backoff?: Backoff | BackoffOptions
  /** Which error kinds count as transient. @default TRANSIENT_KINDS (every kind `isTransientKind` accepts) */
  readonly kinds?: readonly ErrorKind[]
  /** Longest `retry-after` the rule honours, in ms; above it the rule does not match. @default 60_000 */
  readonly maxRetryAfterMs?: number
}

/** The options `retryTransient` takes, checked once. */
const RETRY_TRANSIENT = optionsContract<RetryTransientOptions>('retryTransient', {
  maxRetries: nonNegativeInteger,
  backoff: backoffCheck,
  // A misspelt kind ('rate_limit') would never match: the kinds are named.
  kinds: option.where(
    `an array of error kinds (${ERROR_KINDS.join(', ')})`,
    (v) => Array.isArray(v) && v.every((kind) => (ERROR_KINDS as readonly unknown[]).includes(kind)),
  ),
  maxRetryAfterMs: option.duration(0),
})

/**
 * Retries the transient failures of {@link TRANSIENT_KINDS} (rate limits, 5xx, timeouts, network
 * errors and malformed responses, as that list says) on the same provider with exponential backoff
 * and jitter, honouring the provider's `retry-after`. Waits abort with the run's signal. Options
 * are checked here (an unknown key is a `TypeError`; `maxRetries` an integer 0 or above,
 * `maxRetryAfterMs` whole milliseconds from 0 to 2^31-1, else a `RangeError`).
 *
 * @example
 * createGate({ providers, postDecide: [retryTransient({ maxRetries: 3 }), ...strictOutputRules(3)] })
 */
export function retryTransient(options: RetryTransientOptions = {}): ReliabilityRule {
  const checked = RETRY_TRANSIENT.check(options)
  const maxRetries = checked.maxRetries ?? 3
  const kinds = new Set(checked.kinds ?? TRANSIENT_KINDS)
  const schedule = typeof checked.backoff === 'function' ? checked.backoff : exponentialBackoff(checked.backoff)
  const maxRetryAfter = checked.maxRetryAfterMs ?? 60_000
  const transientSoFar = (scope: ReliabilityScope): number => scope.transientFailures
  return {
    when: function retryTransientWhen(scope) {
      if (!kinds.has(scope.errorKind)) return false
      if (scope.retryAfterMs !== undefined && scope.retryAfterMs > maxRetryAfter) return false
      return transientSoFar(scope) <= maxRetries
    },
    then: 'retry',
    failuresOnly: !kinds.has('ok'),
    kind: 'transient-retry',
    label: `retry transient errors (up to ${maxRetries} times, with backoff)`,
    delayMs: function retryTransientDelay(scope) {
      const computed = schedule(Math.max(0, transientSoFar(scope) - 1))
      return scope.retryAfterMs !== undefined ? Math.max(scope.retryAfterMs, 0) : computed
    },
  }
}
