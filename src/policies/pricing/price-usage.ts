import type { Usage } from '../../model/usage.ts'

/**
 * Prices one attempt's usage in USD; the shape of `GateConfig.priceUsage`. Answer `NaN` when the
 * attempt cannot be priced (e.g. an unknown model): the gate then reports `cost_unknown` and budgets
 * warn or fail closed, instead of counting a silent 0. A promise of a price is awaited (within the
 * attempt's deadline); a synchronous answer costs no promise.
 */
export type PriceUsage = (usage: Usage, model: string | undefined, provider: string) => number | PromiseLike<number>
