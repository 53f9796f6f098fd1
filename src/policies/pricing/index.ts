export type { ModelPrice, PricingTable } from './model-price.ts'
export type { PriceUsage } from './price-usage.ts'
export { costOf, pricingTable } from './pricing-table.ts'
export type { PricingTableOptions } from './pricing-table.ts'
