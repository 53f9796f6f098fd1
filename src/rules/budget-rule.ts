import type { OnUnpriced } from '../model/on-unpriced.ts'
import type { ReliabilityRule } from './rule.ts'

export type { OnUnpriced }

/** A rule that enforces a cost budget; the gate reports its matches as `budget_exceeded` events. */
export interface BudgetRule extends ReliabilityRule {
  readonly budgetUsd: number
  /** What an attempt that cannot be priced means for this budget. @default 'warn' */
  readonly onUnpriced?: OnUnpriced
}

/** True for a {@link BudgetRule}. */
export function isBudgetRule(rule: ReliabilityRule): rule is BudgetRule {
  return typeof (rule as Partial<BudgetRule>).budgetUsd === 'number'
}
