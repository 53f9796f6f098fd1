import type { BreakerTransition } from './breaker-state.ts'

/** The answer of {@link CircuitBreaker.acquire}: may the attempt call its provider? */
export type BreakerPermit =
  | {
      readonly allowed: true
      /** True when this call is a half-open probe: its result decides whether the breaker closes. */
      readonly probe: boolean
      /** Set when admitting the call changed the state (open -> half-open). */
      readonly transition: BreakerTransition | undefined
    }
  | {
      readonly allowed: false
      /** Time left until the cooldown ends (`undefined` while other probes are in flight). */
      readonly retryAfterMs: number | undefined
      readonly transition: undefined
    }

/**
 * How a call ended, as the breaker counts it: `failure` for a failure of a transient kind
 * (`TRANSIENT_KINDS`, malformed responses included) or an unknown error, `success` for any answer (even one that then fails validation:
 * the provider is up), `ignored` for aborts, which say nothing about the provider.
 */
export type BreakerResult = 'success' | 'failure' | 'ignored'
