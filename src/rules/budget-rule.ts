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

/**
 * What a budget rule does with unpriced attempts, read from its marker: a rule carrying
 * `onUnpriced` (`maxCostRule`'s, the agent's run budget) or a {@link BudgetRule} (`'warn'` by
 * default) spends against a budget and so relies on prices; any other rule gives `undefined`.
 */
export function budgetOnUnpriced(rule: ReliabilityRule): OnUnpriced | undefined {
  const marker = (rule as { onUnpriced?: unknown }).onUnpriced
  if (marker === 'warn' || marker === 'fail') return marker
  return isBudgetRule(rule) ? 'warn' : undefined
}
