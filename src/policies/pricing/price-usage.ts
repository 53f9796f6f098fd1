import type { Usage } from '../../model/usage.ts'

/** Prices one attempt's usage in USD; the shape of `GateConfig.priceUsage`. */
export type PriceUsage = (usage: Usage, model: string | undefined, provider: string) => number
