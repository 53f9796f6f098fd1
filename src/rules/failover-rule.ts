import { ERROR_KINDS, type ErrorKind } from '../model/error-kind.ts'
import type { ReliabilityRule } from './rule.ts'
import { TRANSIENT_KINDS } from './retry-transient.ts'

// The error kinds failoverRule switches provider on by default: refused credentials (`auth`) are
// one provider's, so the next one may still answer.
const FAILOVER_KINDS: readonly ErrorKind[] = Object.freeze(['circuit-open', 'auth', ...TRANSIENT_KINDS])

/**
 * A PostDecide rule that moves to the next provider (`retry-other`) when this attempt failed with
 * one of `kinds` and another provider is left. Put it after `retryTransient` to retry a provider a
 * few times before leaving it, or alone to leave it at once.
 *
 * @default kinds = `circuit-open`, `auth` and every kind of `TRANSIENT_KINDS`
 * @example
 * createGate({ providers: [primary, backup], breaker: {}, postDecide: [failoverRule()] })
 */
export function failoverRule(kinds: readonly ErrorKind[] = FAILOVER_KINDS): ReliabilityRule {
  if (!Array.isArray(kinds)) throw new TypeError(`failoverRule: kinds must be an array of error kinds, got ${typeof kinds}`)
  for (const kind of kinds) {
    if (!(ERROR_KINDS as readonly unknown[]).includes(kind)) {
      throw new TypeError(`failoverRule: ${JSON.stringify(kind) ?? String(kind)} is not an error kind; the kinds are ${ERROR_KINDS.join(', ')}`)
    }
  }
  const on = new Set(kinds)
  return {
    when: function failover(scope) {
      return scope.canSwitchProvider && on.has(scope.errorKind)
    },
    then: 'retry-other',
    failuresOnly: !on.has('ok'),
    kind: 'failover',
    label: `fail over to the next provider on ${[...on].join(', ')}`,
  }
}
