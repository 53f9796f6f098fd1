import { nonNegativeInteger, nonNegativeNumber } from '../model/assert-number.ts'
import { TRANSIENT_KINDS, type ErrorKind } from '../model/error-kind.ts'
import { exponentialBackoff, type Backoff, type BackoffOptions } from './backoff.ts'
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

/**
 * Retries the transient failures of {@link TRANSIENT_KINDS} (rate limits, 5xx, timeouts, network
 * errors and malformed responses, as that list says) on the same provider with exponential backoff
 * and jitter, honouring the provider's `retry-after`. Waits abort with the run's signal. Numeric
 * options are checked here (`maxRetries` an integer 0 or above, `maxRetryAfterMs` a finite number 0
 * or above): anything else throws a `RangeError`.
 *
 * @example
 * createGate({ providers, postDecide: [retryTransient({ maxRetries: 3 }), ...strictOutputRules(3)] })
 */
export function retryTransient(options: RetryTransientOptions = {}): ReliabilityRule {
  const maxRetries = nonNegativeInteger(options.maxRetries, 'retryTransient: maxRetries', 3)
  const kinds = new Set(options.kinds ?? TRANSIENT_KINDS)
  const schedule = typeof options.backoff === 'function' ? options.backoff : exponentialBackoff(options.backoff)
  const maxRetryAfter = nonNegativeNumber(options.maxRetryAfterMs, 'retryTransient: maxRetryAfterMs', 60_000)
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
