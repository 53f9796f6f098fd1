import { BUDGET_TOLERANCE_USD } from '../../model/budget-tolerance.ts'
import { ProviderError } from '../../model/provider-error.ts'
import type { Middleware } from '../middleware.ts'
import type { PriceUsage } from '../pricing/price-usage.ts'
import type { SharedBudget } from './shared-budget.ts'


/** The code of the `ProviderError` raised when a budget's store fails: the provider is not to blame. */
export const BUDGET_STORE_FAILED = 'budget-store-failed'

/** Reports a spent budget (the gate emits `budget_exceeded`). */
export type OnBudgetExceeded = (spentUsd: number, runId: string) => void

/**
 * The shared-budget policy: a spent budget fails the attempt before the provider is called (kind
 * `budget-exceeded`); an answered attempt's cost is charged to it. A store that cannot be read or
 * charged fails the attempt (kind `unknown`, code {@link BUDGET_STORE_FAILED}): a budget fails closed.
 */
export function budgetLink(budget: SharedBudget, price: PriceUsage | undefined, onExceeded: OnBudgetExceeded): Middleware {
  return async function budget_(ctx, next) {
    let spent: number
    try {
      spent = await budget.spent()
    } catch (error) {
      throw storeFailed(budget, 'read', error)
    }
    if (!(spent < budget.usd - BUDGET_TOLERANCE_USD)) {
      onExceeded(spent, ctx.runId)
      throw new ProviderError(`the shared budget "${budget.key}" of $${budget.usd} is spent ($${spent}) before attempt ${ctx.attempt}`, { kind: 'budget-exceeded', code: 'shared-budget' })
    }
    const result = await next()
    const cost = price?.(result.response.usage, ctx.model, ctx.provider) ?? 0
    if (cost > 0) {
      try {
        await budget.charge(cost)
      } catch (error) {
        throw storeFailed(budget, 'charged', error)
      }
    }
    return result
  }
}

function storeFailed(budget: SharedBudget, what: 'read' | 'charged', error: unknown): ProviderError {
  const detail = error instanceof Error ? error.message : String(error)
  return new ProviderError(`the shared budget "${budget.key}" could not be ${what}: ${detail}`, { kind: 'unknown', code: BUDGET_STORE_FAILED, cause: error })
}
