import { messageOf } from '../model/message-of.ts'
import { addUsage, ZERO_USAGE, type Usage } from '../model/usage.ts'
import type { PriceUsage } from './pricing/price-usage.ts'

/** The reason an attempt is unpriced when no price function is configured but a budget needs one. */
export const NO_PRICING = 'no pricing is configured (give pricing or priceUsage) while a budget needs one'

/**
 * The price of one attempt's usage: a finite, non-negative number of USD, or a string saying why
 * there is none (an unknown model, a price function that threw or answered `NaN`, a negative number
 * or no number). Never throws.
 */
export function priceOrReason(price: PriceUsage, usage: Usage, model: string | undefined, provider: string): number | string {
  let priced: unknown
  try {
    priced = price(usage, model, provider)
  } catch (error) {
    return `the price function threw: ${messageOf(error)}`
  }
  if (typeof priced === 'number' && Number.isFinite(priced) && priced >= 0) return priced
  if (typeof priced === 'number' && Number.isNaN(priced)) return `no price for model ${model === undefined ? '(none given)' : JSON.stringify(model)}`
  return `the price function answered ${typeof priced === 'number' ? String(priced) : typeof priced}, not a finite non-negative number of USD`
}

/**
 * The meter of one run: adds every attempt's usage and cost, failed attempts included. An attempt
 * that cannot be priced costs 0 in `costUsd` (never `NaN`, which would silently switch every budget
 * off) and is counted in `unpricedAttempts`, with the reason in `lastUnpriced`, so that budgets can
 * warn or fail closed.
 */
export class RunMeter {
  usage: Usage = ZERO_USAGE
  costUsd = 0
  /** Cost of the latest attempt that got an answer: an estimate of the next one. */
  lastCostUsd = 0
  /** Answered attempts whose cost could not be priced. */
  unpricedAttempts = 0
  /** Why the latest answered attempt could not be priced; `undefined` when it was. */
  lastUnpriced: string | undefined = undefined
  readonly #price: PriceUsage | undefined
  readonly #needsPrice: boolean

  /** `needsPrice`: a budget relies on prices, so an attempt without any price function is unpriced too. */
  constructor(price: PriceUsage | undefined, needsPrice = false) {
    this.#price = price
    this.#needsPrice = needsPrice
  }

  /** Adds one attempt's usage (already made finite by `finiteUsage`) and returns its cost in USD. */
  add(usage: Usage, model: string | undefined, provider: string): number {
    let cost = 0
    let unpriced: string | undefined
    if (this.#price !== undefined) {
      const priced = priceOrReason(this.#price, usage, model, provider)
      if (typeof priced === 'number') cost = priced
      else unpriced = priced
    } else if (this.#needsPrice) {
      unpriced = NO_PRICING
    }
    if (unpriced !== undefined) this.unpricedAttempts++
    this.lastUnpriced = unpriced
    this.usage = this.usage === ZERO_USAGE ? usage : addUsage(this.usage, usage)
    this.costUsd += cost
    this.lastCostUsd = cost
    return cost
  }
}
