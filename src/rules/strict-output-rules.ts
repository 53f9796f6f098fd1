import { positiveInteger } from '../model/assert-number.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import type { ReliabilityRule } from './rule.ts'
import { defaultStuckLoopRule, stuckLoopRule } from './stuck-loop.ts'

/** Options of {@link strictOutputRules}. */
export interface StrictOutputRulesOptions {
  /**
   * Stuck-loop detection: fail fast with kind `schema-stuck-loop` once this many validation failures
   * in a row have the identical message (see `stuckLoopRule(n)`); `false` leaves it out, e.g. to put
   * your own stuck rule first.
   * @default 2
   */
  readonly stuckAfter?: number | false
}

/** The options `strictOutputRules` takes, checked once. */
const STRICT_OUTPUT_RULES = optionsContract<StrictOutputRulesOptions>('strictOutputRules', {
  stuckAfter: option.either(
    option.oneOf(false),
    option.where('a positive integer', (v) => Number.isSafeInteger(v) && (v as number) >= 1),
  ),
})

/**
 * The strict-output rule set: stuck-loop detection first (2 identical failures by default), then
 * retry with validation feedback while fewer than `maxAttempts` attempts have been made, then fail
 * fast with `schema-retry-exhausted`.
 *
 * A run therefore succeeds exactly when fewer than `maxAttempts` failures precede the first valid
 * answer, and no `stuckAfter` of them in a row are identical.
 *
 * @example
 * agent.reliability({ postDecide: strictOutputRules(3) })
 * @example
 * agent.reliability({ postDecide: strictOutputRules(5, { stuckAfter: 3 }) }) // tolerate one repeat
 */
export function strictOutputRules(maxAttempts: number, options: StrictOutputRulesOptions = {}): readonly ReliabilityRule[] {
  positiveInteger(maxAttempts, 'strictOutputRules: maxAttempts')
  const stuck = stuckRuleFor(STRICT_OUTPUT_RULES.check(options).stuckAfter, 'strictOutputRules: stuckAfter')
  return Object.freeze([
    ...(stuck === undefined ? [] : [stuck]),
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

/** The stuck-loop rule of a `stuckAfter` option (`undefined` for `false`); 2 is the shared default rule. */
export function stuckRuleFor(stuckAfter: number | false | undefined, what: string, fallback: number | false = 2): ReliabilityRule | undefined {
  const n = stuckAfter ?? fallback
  if (n === false) return undefined
  positiveInteger(n, what)
  if (n < 2) throw new RangeError(`${what} must be at least 2 (identical failures in a row) or false, got ${n}`)
  return n === 2 ? defaultStuckLoopRule : stuckLoopRule(n)
}
