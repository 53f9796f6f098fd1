import { callUser, type UserResult } from '../model/user-code.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'

/** How the rules are asked: bounded by the run's `signal`; a `when` that throws or rejects is reported to `onError`. */
export interface RuleAsk {
  readonly signal: AbortSignal | undefined
  readonly onError: (rule: ReliabilityRule, error: unknown) => void
}

/**
 * Returns the first rule (from `from`) whose `when` is true. `when` is user code, called at the
 * boundary: one that throws or rejects counts as not matching (and is reported); one that answers
 * with a promise is awaited, bounded by the run's signal. Synchronous while every `when` answers synchronously.
 */
export function firstMatchingRule(
  rules: readonly ReliabilityRule[],
  scope: ReliabilityScope,
  ask: RuleAsk,
  from = 0,
): ReliabilityRule | undefined | Promise<ReliabilityRule | undefined> {
  for (let i = from; i < rules.length; i++) {
    const rule = rules[i] as ReliabilityRule
    const answer = callUser(() => rule.when(scope) as unknown, ask.signal)
    if (answer instanceof Promise) {
      return answer.then((settled) => (matched(rule, settled, ask) ? rule : firstMatchingRule(rules, scope, ask, i + 1)))
    }
    if (matched(rule, answer, ask)) return rule
  }
  return undefined
}

function matched(rule: ReliabilityRule, answer: UserResult<unknown>, ask: RuleAsk): boolean {
  if (answer.ok) return answer.value === true
  // An abort is the run's, not the rule's: the loop ends the run.
  if (!answer.aborted) ask.onError(rule, answer.error)
  return false
}
