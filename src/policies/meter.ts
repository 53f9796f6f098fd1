import { messageOf } from '../model/message-of.ts'
import { isThenable, settleUser } from '../model/user-code.ts'
import { addUsage, ZERO_USAGE, type Usage } from '../model/usage.ts'
import type { PriceUsage } from './pricing/price-usage.ts'

/** The reason an attempt is unpriced when the gate has no prices and nothing needs them (reported, never warned). */
export const NO_PRICE_TABLE = 'no pricing is configured'

/** The reason an attempt is unpriced when no price function is configured but a budget needs one. */
export const NO_PRICING = 'no pricing is configured (give pricing or priceUsage) while a budget needs one'

/**
 * The price of one attempt's usage: a finite, non-negative number of USD, or a string saying why
 * there is none (an unknown model, a price function that threw or answered `NaN`, a negative number
 * or no number). A price function that answers a promise is awaited through the one boundary into
 * user code (a rejection is a reason); the answer is then a promise. Never throws.
 */
export function priceOrReason(price: PriceUsage, usage: Usage, model: string | undefined, provider: string): number | string | Promise<number | string> {
  let priced: unknown
  try {
    priced = price(usage, model, provider)
  } catch (error) {
    return `the price function threw: ${messageOf(error)}`
  }
  if (typeof priced === 'number' && Number.isFinite(priced) && priced >= 0) return priced
  if (isThenable(priced)) return settleUser(priced).then((r) => (r.ok ? priceOf(r.value, model) : `the price function rejected: ${messageOf(r.error)}`))
  return priceOf(priced, model)
}

/** A price function's answer as a price, or why it is none. */
function priceOf(priced: unknown, model: string | undefined): number | string {
  if (typeof priced === 'number' && Number.isFinite(priced) && priced >= 0) return priced
  if (typeof priced === 'number' && Number.isNaN(priced)) return `no price for model ${model === undefined ? '(none given)' : JSON.stringify(model)}`
  return `the price function answered ${typeof priced === 'number' ? String(priced) : typeof priced}, not a finite non-negative number of USD`
}

/** A run's totals so far, failed attempts included. */
export interface MeterTotals {
  readonly usage: Usage
  readonly costUsd: number
  /** Cost of the latest attempt that got an answer: an estimate of the next one. */
  readonly lastCostUsd: number
  /** Answered attempts whose cost could not be priced. */
  readonly unpricedAttempts: number
}

/**
 * The meter of one run: adds every attempt's metered usage and cost, failed attempts included. An
 * attempt that cannot be priced costs 0 in `costUsd` (never `NaN`, which would silently switch every
 * budget off) and is counted in `unpricedAttempts`, so that budgets can warn or fail closed.
 */
export class RunMeter implements MeterTotals {
  usage: Usage = ZERO_USAGE
  costUsd = 0
  lastCostUsd = 0
  unpricedAttempts = 0

  /** Adds one answered attempt: its usage, its cost (0 when `unpriced`). */
  add(usage: Usage, costUsd: number, unpriced: boolean): void {
    if (unpriced) this.unpricedAttempts++
    this.usage = this.usage === ZERO_USAGE ? usage : addUsage(this.usage, usage)
    this.costUsd += costUsd
    this.lastCostUsd = costUsd
  }
}
