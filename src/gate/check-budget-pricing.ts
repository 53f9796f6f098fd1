import { budgetOnUnpriced } from '../rules/budget-rule.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { GateConfig } from './gate-config.ts'

/**
 * Whether a gate relies on prices (a shared budget, or a budget rule: one marked with `onUnpriced`,
 * see `budgetOnUnpriced`), checked once at creation: a budget told to fail closed on unpriced
 * attempts (`onUnpriced: 'fail'`) with no price at all could never let an attempt through, so that
 * is a configuration error here rather than a surprise at the first run.
 */
export function checkBudgetPricing(config: GateConfig<unknown>, rules: readonly ReliabilityRule[], priced: boolean): boolean {
  const budgetRules = rules.filter((rule) => budgetOnUnpriced(rule) !== undefined)
  if (!priced) {
    const closed = budgetRules.find((rule) => budgetOnUnpriced(rule) === 'fail')
    if (closed !== undefined)
      throw new TypeError(
        `createGate: ${closed.label ?? closed.kind} fails closed on unpriced attempts (onUnpriced: 'fail') but no pricing or priceUsage is given`,
      )
    if (config.budget?.onUnpriced === 'fail')
      throw new TypeError(
        `createGate: the shared budget "${config.budget.key}" fails closed on unpriced attempts (onUnpriced: 'fail') but no pricing or priceUsage is given`,
      )
  }
  return config.budget !== undefined || budgetRules.length > 0
}
