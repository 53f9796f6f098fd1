import { positiveNumber } from '../model/assert-number.ts'

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
}

/** Validates and freezes a {@link CostBudget}. */
export function resolveCostBudget(budget: CostBudget): Required<CostBudget> {
  if (budget === null || typeof budget !== 'object') throw new TypeError('Agent.costBudget: expected { usd, onExceed }')
  const usd = positiveNumber(budget.usd, 'Agent.costBudget: usd')
  const onExceed = budget.onExceed ?? 'halt'
  if (onExceed !== 'warn' && onExceed !== 'halt') throw new TypeError(`Agent.costBudget: onExceed must be 'warn' or 'halt', got ${String(onExceed)}`)
  return Object.freeze({ usd, onExceed })
}
