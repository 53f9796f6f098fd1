import type { ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'

/** Returns the first rule whose `when` is true; a `when` that throws counts as not matching. */
export function firstMatchingRule(
  rules: readonly ReliabilityRule[],
  scope: ReliabilityScope,
  onError: (rule: ReliabilityRule, error: unknown) => void,
): ReliabilityRule | undefined {
  for (const rule of rules) {
    let matched = false
    try {
      matched = rule.when(scope) === true
    } catch (error) {
      onError(rule, error)
    }
    if (matched) return rule
  }
  return undefined
}
