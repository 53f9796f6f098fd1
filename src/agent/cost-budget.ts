import { positiveNumber } from '../model/assert-number.ts'
import { onUnpricedOption, type OnUnpriced } from '../model/on-unpriced.ts'
import { option, optionsContract } from '../model/options-contract.ts'

/**
 * A cost budget for one agent run, across every model call the run makes (tool turns and
 * tool-argument retries included). Needs a price: `reliability({ pricing })` or `priceUsage`.
 *
 * @example
 * Agent.create({ provider, model: 'gpt-4o' }).reliability({ pricing }).costBudget({ usd: 0.5, onExceed: 'halt' })
 */
export interface CostBudget {
  /** The budget in USD for one run. */
  readonly usd: number
  /**
   * Checked before each model call once the run's cost has reached `usd`: `halt` fails the run with
   * kind `budget-exceeded` before the provider is called; `warn` emits `budget_exceeded` once and
   * goes on.
   * @default 'halt'
   */
  readonly onExceed?: 'warn' | 'halt'
  /**
   * A model call whose cost cannot be priced (no pricing, an unknown model, a failing price
   * function): `warn` counts it as $0 and reports `cost_unknown` (and a `warn` line on the agent's
   * logger); `fail` halts the run before its next model call (fail closed), with kind
   * `budget-exceeded`. `fail` needs a price (`reliability({ pricing })` or `priceUsage`).
   * @default 'warn'
   */
  readonly onUnpriced?: OnUnpriced
}

/** The keys of `Agent.costBudget(budget)`: a misspelt one (`onExeed`) is refused, never ignored. */
const COST_BUDGET_OPTIONS = optionsContract<CostBudget>('Agent.costBudget', {
  usd: option.positiveNumber(),
  onExceed: option.oneOf('warn', 'halt'),
  onUnpriced: option.oneOf('warn', 'fail'),
})

/** Validates and freezes a {@link CostBudget}. */
export function resolveCostBudget(budget: CostBudget): Required<CostBudget> {
  if (budget === null || typeof budget !== 'object') throw new TypeError('Agent.costBudget: expected { usd, onExceed }')
  // Each option read once, by the check: a getter answering another value later changes nothing.
  const checked = COST_BUDGET_OPTIONS.check(budget)
  const usd = positiveNumber(checked.usd, 'Agent.costBudget: usd')
  const onExceed = checked.onExceed ?? 'halt'
  const onUnpriced = onUnpricedOption(checked.onUnpriced, 'Agent.costBudget: onUnpriced')
  return Object.freeze({ usd, onExceed, onUnpriced })
}
