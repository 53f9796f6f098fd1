import { shownValue, typeName } from '../model/describe-value.ts'
import { positiveInteger } from '../model/assert-number.ts'
import type { ReliabilityRule } from './rule.ts'
import type { ReliabilityScope } from './scope.ts'

/**
 * True when the last `n` validation failures of the run are identical: the model is repeating
 * itself and more feedback will not help. Identical means the same full set of issues (the gate's
 * `validationErrorSignatures`), not just the same one-line message, which names only the first few
 * issues and cuts long keys; a scope without signatures (built by hand) compares the messages.
 *
 * An `n` that is no integer of 1 or more (`0`, `-1`, `NaN`, `1.5`, `'2'`) is a `RangeError`; a
 * `scope` that is none (`null`, an object without a `validationErrorHistory` array) a `TypeError`
 * (inside a rule's `when`, the gate reports it as a `rule_error` and the rule as not matching).
 *
 * @default n = 2
 */
export function lastNValidationErrorsMatch(scope: ReliabilityScope, n: number = 2): boolean {
  // NaN would compare nothing and answer true: every run would look stuck.
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`lastNValidationErrorsMatch: n must be an integer of 1 or more, got ${shownValue(n)}`)
  const history = failuresOf(scope)
  if (history.length < n) return false
  const last = history[history.length - 1]
  for (let i = history.length - n; i < history.length - 1; i++) {
    if (history[i] !== last) return false
  }
  return true
}

/** The failures a scope compares: its signatures when they track its history, else its messages; a TypeError for no scope. */
function failuresOf(scope: unknown): readonly string[] {
  if (typeof scope !== 'object' || scope === null) {
    throw new TypeError(`lastNValidationErrorsMatch: scope must be a reliability scope, got ${typeName(scope)}`)
  }
  const { validationErrorHistory: history, validationErrorSignatures: signatures } = scope as Partial<ReliabilityScope>
  if (!Array.isArray(history)) {
    throw new TypeError(`lastNValidationErrorsMatch: scope.validationErrorHistory must be an array of messages, got ${typeName(history)}`)
  }
  return Array.isArray(signatures) && signatures.length === history.length ? signatures : history
}

/**
 * A PostDecide rule that fails fast with kind `schema-stuck-loop` once the last `n` validation
 * failures of the run are identical (`lastNValidationErrorsMatch(scope, n)`): more feedback will not
 * help a model that repeats itself. `strictOutputRules(max, { stuckAfter: n })` puts it first in its
 * set; alone, put it before your retry rules.
 *
 * @default n = 2
 * @example
 * agent.reliability({ postDecide: strictOutputRules(5, { stuckAfter: 3 }) })
 * @example
 * agent.reliability({ postDecide: [stuckLoopRule(3), myRetryRule, myGiveUpRule] })
 */
export const stuckLoopRule = (n: number = 2): ReliabilityRule => stuckLoopRuleOf(checkedRepeats(n))

const stuckLoopRuleOf = (n: number): ReliabilityRule => ({
  when: function stuckLoop(scope) {
    // Only an attempt that failed validation can be stuck: a valid answer (or a provider error) after
    // repeats is not one more repeat. A scope built by hand with only the history is read as agentfootprint
    // reads it: the history alone decides.
    // The history is read first: a value that is no scope is refused by its typed TypeError, never a raw one.
    return lastNValidationErrorsMatch(scope, n) && (scope.validationError !== undefined || scope.errorKind === undefined)
  },
  then: 'fail-fast',
  failuresOnly: true,
  kind: 'schema-stuck-loop',
  // agentfootprint's label (for n = 2), so events and the error's reason read as they do there.
  label: `model produced the same validation error ${n === 2 ? 'twice' : `${n} times`} in a row`,
})

/**
 * `stuckLoopRule(2)`: fails fast with kind `schema-stuck-loop` when the last 2 validation failures
 * are identical. `strictOutputRules(n)` already starts with it; do not list it again.
 */
export const defaultStuckLoopRule: ReliabilityRule = Object.freeze(stuckLoopRule(2))

/** `n` of {@link stuckLoopRule}: an integer, 2 or above (one failure alone is no loop). */
function checkedRepeats(n: unknown): number {
  const checked = positiveInteger(n, 'stuckLoopRule: n')
  if (checked < 2) throw new RangeError(`stuckLoopRule: n must be at least 2 (identical failures in a row), got ${checked}`)
  return checked
}
