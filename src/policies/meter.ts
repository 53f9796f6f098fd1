import { messageOf } from '../model/message-of.ts'
import { containReturned, isThenable } from '../model/user-code.ts'
import { addUsage, ZERO_USAGE, type Usage } from '../model/usage.ts'
import type { PriceUsage } from './pricing/price-usage.ts'
import type { ModelResponse } from '../model/response.ts'

/** The reason an attempt is unpriced when the gate has no prices and nothing needs them (reported, never warned). */
export const NO_PRICE_TABLE = 'no pricing is configured'

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
  if (isThenable(priced)) {
    // Contained: a rejection of it must not surface as an unhandled one.
    containReturned(priced, () => undefined)
    return 'the price function answered a promise; a price must be a number, computed synchronously'
  }
  if (typeof priced === 'number' && Number.isNaN(priced)) return `no price for model ${model === undefined ? '(none given)' : JSON.stringify(model)}`
  return `the price function answered ${typeof priced === 'number' ? String(priced) : typeof priced}, not a finite non-negative number of USD`
}

/** The meter's reading of one answered attempt: its usage (estimated when unsound) and its price. */
export interface Metered {
  readonly usage: Usage
  readonly costUsd: number
  /** Why the attempt could not be priced (`costUsd` is then 0); `undefined` when it was. */
  readonly unpriced: string | undefined
}

/**
 * Prices one attempt's usage (already made finite by `finiteUsage`): with a price function, its
 * answer or why there is none; without one, $0 and unpriced (`NO_PRICING` when a budget needs prices,
 * {@link NO_PRICE_TABLE} otherwise).
 */
export function priceAttempt(
  price: PriceUsage | undefined,
  needsPrice: boolean,
  usage: Usage,
  model: string | undefined,
  provider: string,
  response: ModelResponse,
): MeteredAnswer {
  // Unpriced is not free: without any price the attempt says so, whether or not a budget needs one.
  if (price === undefined) return { usage, costUsd: 0, unpriced: needsPrice ? NO_PRICING : NO_PRICE_TABLE, response }
  const priced = priceOrReason(price, usage, model, provider)
  return typeof priced === 'number' ? { usage, costUsd: priced, unpriced: undefined, response } : { usage, costUsd: 0, unpriced: priced, response }
}

/** The meter's reading with the (shape-checked) answer it read. */
export interface MeteredAnswer extends Metered {
  readonly response: ModelResponse
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
  // The latest reading, and the totals once there are two: a run of one attempt keeps no numbers of
  // its own (four fields, two of them boxed doubles, were about 60 B a run).
  #last: Metered | undefined = undefined
  #total: { readonly usage: Usage; readonly costUsd: number } | undefined = undefined
  #unpriced = 0

  get usage(): Usage {
    return this.#total?.usage ?? this.#last?.usage ?? ZERO_USAGE
  }

  get costUsd(): number {
    return this.#total?.costUsd ?? this.#last?.costUsd ?? 0
  }

  get lastCostUsd(): number {
    return this.#last?.costUsd ?? 0
  }

  get unpricedAttempts(): number {
    return this.#unpriced
  }

  add(metered: Metered): void {
    if (metered.unpriced !== undefined) this.#unpriced++
    const before = this.#total ?? this.#last
    if (before !== undefined) this.#total = { usage: addUsage(before.usage, metered.usage), costUsd: before.costUsd + metered.costUsd }
    this.#last = metered
  }
}
