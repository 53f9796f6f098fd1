import type { ReliabilityRule } from './rule.ts'

/** A rule that enforces a cost budget; the gate reports its matches as `budget_exceeded` events. */
export interface BudgetRule extends ReliabilityRule {
  readonly budgetUsd: number
}

/** True for a {@link BudgetRule}. */
export function isBudgetRule(rule: ReliabilityRule): rule is BudgetRule {
  return typeof (rule as Partial<BudgetRule>).budgetUsd === 'number'
}
