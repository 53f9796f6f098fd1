import { typeName } from '../../model/describe-value.ts'
import { refuseUnknownOptions } from '../../model/known-options.ts'
import { option, optionsContract, readOption } from '../../model/options-contract.ts'
import { containReturned } from '../../model/user-code.ts'
import type { Usage } from '../../model/usage.ts'
import type { ModelPrice, PricingTable } from './model-price.ts'
import type { PriceUsage } from './price-usage.ts'

/** Options of {@link pricingTable}. */
export interface PricingTableOptions {
  /**
   * Called once per model name that is not in the table (and once for attempts with no model at all,
   * with `undefined`). Such attempts are priced `NaN`: the gate counts them as 0 in `costUsd`, marks
   * them unpriced and reports `cost_unknown`, and budgets warn or fail closed (`onUnpriced`).
   * @default nothing
   */
  readonly onUnknownModel?: (model: string | undefined, provider: string) => void
}

/** The options `pricingTable` takes, checked once. */
const PRICING_TABLE = optionsContract<PricingTableOptions>('pricingTable', { onUnknownModel: option.function() })

/** The fields of a model's price: a misspelt one (`cache_read`) is refused, not priced at the input rate. */
const PRICE_FIELDS: readonly (keyof ModelPrice)[] = ['input', 'output', 'cacheRead', 'cacheWrite']

/**
 * Turns a table of prices (USD per million tokens) into a {@link PriceUsage} function for
 * `GateConfig.priceUsage`. A model is looked up by its exact name first, then by the longest table
 * key it starts with followed by `-`, `@` or `:`, so `'gpt-4o'` also prices `'gpt-4o-2024-08-06'`
 * (while `'gpt-4'` does not price `'gpt-4o'`). An unknown model is priced
 * `NaN` ("cannot price", never a silent 0) and reported once through `onUnknownModel`.
 *
 * @example
 * // Example prices only: check your provider's current price list.
 * const price = pricingTable({ 'my-model': { input: 2.5, output: 10, cacheRead: 1.25 } })
 * price({ inputTokens: 1000, outputTokens: 500 }, 'my-model', 'openai') // 0.0075
 */
export function pricingTable(table: PricingTable, given: PricingTableOptions = {}): (usage: Usage, model: string | undefined, provider: string) => number {
  const options = PRICING_TABLE.check(given)
  if (typeof table !== 'object' || table === null || Array.isArray(table)) {
    throw new TypeError(`pricingTable: expected an object of prices by model, got ${typeName(table)}`)
  }
  // Each price read once, into a frozen copy: a getter or an edit of the caller's table after this check never changes what is charged.
  const entries = new Map<string, ModelPrice>(Object.entries(table).map(([model, price]) => [model, checkedPrice(model, price)]))
  // Longest prefix first, so a specific key wins over a family key.
  const prefixes = [...entries.keys()].sort((a, b) => b.length - a.length)
  const resolved = new Map<string, ModelPrice | undefined>()
  const reported = new Set<string | undefined>()

  const lookup = (model: string): ModelPrice | undefined => {
    if (resolved.has(model)) return resolved.get(model)
    const key = entries.has(model) ? model : prefixes.find((p) => model.startsWith(p) && SEPARATORS.has(model.charAt(p.length)))
    const price = key === undefined ? undefined : entries.get(key)
    resolved.set(model, price)
    return price
  }

  return function priceUsage(usage: Usage, model: string | undefined, provider: string): number {
    const price = model === undefined ? undefined : lookup(model)
    if (price === undefined) {
      if (!reported.has(model)) {
        reported.add(model)
        tell(options.onUnknownModel, model, provider)
      }
      return Number.NaN
    }
    return costOf(usage, price)
  }
}

// What may follow a table key in a longer name of the same model: a date or version (`-2024-08-06`,
// Vertex's `@20240620`, Bedrock's `:0`). `gpt-4o` and `gpt-4.1` are other models than `gpt-4`.
const SEPARATORS: ReadonlySet<string> = new Set(['-', '@', ':'])

/** Calls the user's `onUnknownModel`: what it throws, or a promise it returns rejects with, is dropped (the model is unpriced all the same). */
function tell(onUnknownModel: PricingTableOptions['onUnknownModel'], model: string | undefined, provider: string): void {
  try {
    containReturned(onUnknownModel?.(model, provider), () => undefined)
  } catch {
    // A reporter that fails must not turn an unknown model into a price function that threw.
  }
}

/** The cost in USD of `usage` at `price`. */
export function costOf(usage: Usage, price: ModelPrice): number {
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      (usage.cacheReadTokens ?? 0) * (price.cacheRead ?? price.input) +
      (usage.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input)) /
    1_000_000
  )
}

/** `price` checked, as a frozen copy of what was read (each field once). */
function checkedPrice(model: string, price: ModelPrice): ModelPrice {
  if (typeof price !== 'object' || price === null || Array.isArray(price)) {
    throw new TypeError(`pricingTable: ${model} must be an object { input, output, cacheRead?, cacheWrite? }, got ${typeName(price)}`)
  }
  refuseUnknownOptions(price, PRICE_FIELDS, `pricingTable: ${model}`)
  const copy: Record<string, number> = {}
  for (const field of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
    const v = readOption(price, field, `pricingTable: ${model}`)
    if (v === undefined && field !== 'input' && field !== 'output') continue
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new RangeError(`pricingTable: ${model}.${field} must be a non-negative number of USD per million tokens, got ${String(v)}`)
    }
    copy[field] = v
  }
  return Object.freeze(copy) as unknown as ModelPrice
}
