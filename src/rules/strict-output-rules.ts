import { positiveInteger } from '../model/assert-number.ts'
import type { ReliabilityRule } from './rule.ts'
import { defaultStuckLoopRule } from './stuck-loop.ts'

/**
 * The strict-output rule set: stuck-loop detection first, then retry with validation feedback while
 * fewer than `maxAttempts` attempts have been made, then fail fast with `schema-retry-exhausted`.
 *
 * A run therefore succeeds exactly when fewer than `maxAttempts` (distinct) failures precede the
 * first valid answer.
 *
 * @example
 * agent.reliability({ postDecide: strictOutputRules(3) })
 */
export function strictOutputRules(maxAttempts: number): readonly ReliabilityRule[] {
  positiveInteger(maxAttempts, 'strictOutputRules: maxAttempts')
  return Object.freeze([
    defaultStuckLoopRule,
    {
      when: function schemaRetry(scope) {
        return scope.validationError !== undefined && scope.attempt < maxAttempts
      },
      then: 'retry',
      failuresOnly: true,
      kind: 'schema-retry',
      label: `retry with validation feedback (up to ${maxAttempts} attempts)`,
    },
    {
      when: function schemaRetryExhausted(scope) {
        return scope.validationError !== undefined
      },
      then: 'fail-fast',
      failuresOnly: true,
      kind: 'schema-retry-exhausted',
      label: `validation still failing after ${maxAttempts} attempts`,
    },
  ] satisfies ReliabilityRule[])
}
