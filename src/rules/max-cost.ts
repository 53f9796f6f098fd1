import { nonNegativeNumber } from '../model/assert-number.ts'
import { BUDGET_TOLERANCE_USD } from '../model/budget-tolerance.ts'
import { onUnpricedOption } from '../model/on-unpriced.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import type { BudgetRule, OnUnpriced } from './budget-rule.ts'
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
  /**
   * What an attempt whose cost cannot be priced (unknown model, failing price function) means:
   * `warn` counts it as $0 and the gate reports `cost_unknown` (or a process warning when nobody
   * listens); `fail` stops the run before its next attempt (fail closed), with kind
   * `budget-exceeded`. `fail` needs `onExceed: 'halt'` and a price (`pricing` or `priceUsage`).
   * @default 'warn'
   */
  readonly onUnpriced?: OnUnpriced
}

/** The options `maxCostRule` takes, checked once (`onUnpriced` below, with its own wording). */
const MAX_COST = optionsContract<MaxCostOptions>('maxCostRule', {
  estimate: option.either(option.oneOf('none', 'last-attempt'), option.function()),
  onExceed: option.oneOf('halt', 'warn'),
  onUnpriced: option.any(),
})

/**
 * A PreCheck rule that fails fast with kind `budget-exceeded` before an attempt starts over budget.
 * Every attempt counts towards the spend, failed ones included (`scope.cumulativeCostUsd`), so it can
 * stop a retry before the provider is called. Needs a price (`GateConfig.pricing` or `priceUsage`);
 * a usage the provider did not report is estimated, never counted as 0.
 *
 * @example
 * createGate({ providers, pricing, preCheck: [maxCostRule(0.5, { estimate: 'last-attempt', onUnpriced: 'fail' })], postDecide: strictOutputRules(3) })
 */
export function maxCostRule(usd: number, given: MaxCostOptions = {}): BudgetRule {
  nonNegativeNumber(usd, 'maxCostRule: usd')
  const options = MAX_COST.check(given)
  const estimate = options.estimate ?? 'none'
  const next = estimate === 'none' ? () => 0 : estimate === 'last-attempt' ? (scope: ReliabilityScope) => scope.lastAttemptCostUsd : estimate
  const halt = (options.onExceed ?? 'halt') === 'halt'
  const onUnpriced = onUnpricedOption(options.onUnpriced, 'maxCostRule: onUnpriced')
  if (onUnpriced === 'fail' && !halt) throw new TypeError("maxCostRule: onUnpriced 'fail' stops the run, so it needs onExceed 'halt'")
  const failClosed = onUnpriced === 'fail'
  return {
    when: function maxCost(scope) {
      if (failClosed && scope.unpricedAttempts > 0) return true
      const spent = scope.cumulativeCostUsd
      if (spent >= usd - BUDGET_TOLERANCE_USD) return true
      const more = next(scope)
      return more > 0 && spent + more > usd + BUDGET_TOLERANCE_USD
    },
    then: halt ? 'fail-fast' : 'ok',
    kind: 'budget-exceeded',
    label: failClosed ? `cost budget of $${usd} (unpriced attempts fail closed)` : `cost budget of $${usd}`,
    budgetUsd: usd,
    onUnpriced,
  }
}
