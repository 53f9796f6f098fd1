import { nonNegativeNumber } from '../model/assert-number.ts'
import { BUDGET_TOLERANCE_USD } from '../model/budget-tolerance.ts'
import type { BudgetRule } from './budget-rule.ts'
import type { ReliabilityScope } from './scope.ts'

/** Options of {@link maxCostRule}. */
export interface MaxCostOptions {
  /**
   * How the next attempt's cost is estimated before it starts:
   * - `'none'`: stop only once the spend has reached the budget (the next attempt may overshoot it);
   * - `'last-attempt'`: stop when the spend plus the last answered attempt's cost would exceed the
   *   budget, so an attempt that would likely end over budget never starts;
   * - a function of the scope returning an estimate in USD.
   * @default 'none'
   */
  readonly estimate?: 'none' | 'last-attempt' | ((scope: ReliabilityScope) => number)
  /**
   * `halt` fails fast; `warn` lets the run go on and only reports `budget_exceeded`. The same name
   * and values as the agent's `costBudget({ onExceed })`.
   * @default 'halt'
   */
  readonly onExceed?: 'halt' | 'warn'
}

/**
 * A PreCheck rule that fails fast with kind `budget-exceeded` before an attempt starts over budget.
 * Every attempt counts towards the spend, failed ones included (`scope.cumulativeCostUsd`), so it can
 * stop a retry before the provider is called. Needs a price (`GateConfig.pricing` or `priceUsage`).
 *
 * @example
 * createGate({ providers, pricing, preCheck: [maxCostRule(0.5, { estimate: 'last-attempt' })], postDecide: strictOutputRules(3) })
 */
export function maxCostRule(usd: number, options: MaxCostOptions = {}): BudgetRule {
  nonNegativeNumber(usd, 'maxCostRule: usd')
  const estimate = options.estimate ?? 'none'
  const next =
    estimate === 'none' ? () => 0 : estimate === 'last-attempt' ? (scope: ReliabilityScope) => scope.lastAttemptCostUsd : estimate
  const halt = (options.onExceed ?? 'halt') === 'halt'
  return {
    when: function maxCost(scope) {
      const spent = scope.cumulativeCostUsd
      if (spent >= usd - BUDGET_TOLERANCE_USD) return true
      const more = next(scope)
      return more > 0 && spent + more > usd + BUDGET_TOLERANCE_USD
    },
    then: halt ? 'fail-fast' : 'ok',
    kind: 'budget-exceeded',
    label: `cost budget of $${usd}`,
    budgetUsd: usd,
  }
}
