import { addUsage, ZERO_USAGE, type Usage } from '../model/usage.ts'
import type { PriceUsage } from './pricing/price-usage.ts'

/**
 * The meter of one run: adds every attempt's usage and cost, failed attempts included. A price
 * that is not a finite number counts as 0, so a broken price function never turns the run's cost
 * into `NaN` (which would silently switch every budget off).
 */
export class RunMeter {
  usage: Usage = ZERO_USAGE
  costUsd = 0
  /** Cost of the latest attempt that got an answer: an estimate of the next one. */
  lastCostUsd = 0
  readonly #price: PriceUsage | undefined

  constructor(price: PriceUsage | undefined) {
    this.#price = price
  }

  /** Adds one attempt's usage (already made finite by {@link finiteUsage}) and returns its cost in USD. */
  add(usage: Usage, model: string | undefined, provider: string): number {
    let cost = 0
    if (this.#price !== undefined) {
      const priced = this.#price(usage, model, provider)
      if (Number.isFinite(priced) && priced > 0) cost = priced
    }
    this.usage = this.usage === ZERO_USAGE ? usage : addUsage(this.usage, usage)
    this.costUsd += cost
    this.lastCostUsd = cost
    return cost
  }
}

/** `usage` with every count a finite, non-negative number (a provider that reports none reports 0). */
export function finiteUsage(usage: Usage | undefined): Usage {
  if (usage === undefined || usage === null) return ZERO_USAGE
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = usage
  if (count(inputTokens) && count(outputTokens) && (cacheReadTokens === undefined || count(cacheReadTokens)) && (cacheWriteTokens === undefined || count(cacheWriteTokens))) return usage
  const clean: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens: orZero(inputTokens), outputTokens: orZero(outputTokens) }
  if (cacheReadTokens !== undefined) clean.cacheReadTokens = orZero(cacheReadTokens)
  if (cacheWriteTokens !== undefined) clean.cacheWriteTokens = orZero(cacheWriteTokens)
  return clean
}

function count(n: unknown): boolean {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0
}

function orZero(n: unknown): number {
  return count(n) ? (n as number) : 0
}
