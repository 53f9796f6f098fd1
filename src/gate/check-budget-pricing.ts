import { budgetOnUnpriced } from '../rules/budget-rule.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { GateConfig } from './gate-config.ts'

// What to set, said the same way in every refusal.
const SET_PRICES = "set pricing ({ '<model>': { input, output } }, USD per million tokens) or priceUsage on the gate (reliability({ pricing }) on an agent)"

/**
 * Whether a gate relies on prices (a shared budget, or a budget rule: one marked with `onUnpriced`,
 * see `budgetOnUnpriced`, the agent's `costBudget` among them), checked once at creation. A budget
 * with no price at all would count every attempt as $0 and never stop (or, told to fail closed on
 * unpriced attempts, never let one through): that is a configuration error here, a `TypeError`
 * saying what to set, rather than a budget that silently does nothing. A shared budget with a fixed
 * `reserveUsd` counts without prices (each attempt is charged what it reserved).
 */
export function checkBudgetPricing(config: GateConfig<unknown>, rules: readonly ReliabilityRule[], priced: boolean): boolean {
  const budgetRules = rules.filter((rule) => budgetOnUnpriced(rule) !== undefined)
  if (!priced) {
    const closed = budgetRules.find((rule) => budgetOnUnpriced(rule) === 'fail')
    if (closed !== undefined)
      throw new TypeError(
        `createGate: ${closed.label ?? closed.kind} fails closed on unpriced attempts (onUnpriced: 'fail') but no pricing or priceUsage is given (or the pricing table prices no model): ${SET_PRICES}`,
      )
    const budget = config.budget
    if (budget?.onUnpriced === 'fail')
      throw new TypeError(
        `createGate: the shared budget "${budget.key}" fails closed on unpriced attempts (onUnpriced: 'fail') but no pricing or priceUsage is given (or the pricing table prices no model): ${SET_PRICES}`,
      )
    const counting = budgetRules[0]
    if (counting !== undefined)
      throw new TypeError(
        `createGate: ${counting.label ?? counting.kind} has no prices to count with (no pricing or priceUsage is given, or the pricing table prices no model), so it would count every attempt as $0 and never stop: ${SET_PRICES}`,
      )
    // A fixed reservation of $0 charges each attempt $0: no count at all.
    if (budget !== undefined && !(typeof budget.reserveUsd === 'number' && budget.reserveUsd > 0))
      throw new TypeError(
        `createGate: the shared budget "${budget.key}" has no prices to count with (no pricing or priceUsage is given, or the pricing table prices no model), so it would count every attempt as $0 and never stop: ${SET_PRICES}, or give the budget a fixed reserveUsd (above 0) per attempt`,
      )
  }
  return config.budget !== undefined || budgetRules.length > 0
}
