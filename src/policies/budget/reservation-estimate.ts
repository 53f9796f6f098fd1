import type { ModelRequest } from '../../model/request.ts'
import type { Usage } from '../../model/usage.ts'
import { jsonBytes } from './json-bytes.ts'
import { utf8Length } from '../../model/utf8-length.ts'
import { NO_PRICING, priceOrReason } from '../meter.ts'
import type { AttemptContext } from '../middleware.ts'
import type { PriceUsage } from '../pricing/price-usage.ts'
import type { SharedBudget } from './shared-budget.ts'

// Tokens a provider adds around each message (role markers, separators): a generous bound.
const TOKENS_PER_MESSAGE = 8

/**
 * What one attempt may cost at most, to reserve before it starts: the budget's fixed `reserveUsd`,
 * or the price of an upper bound of its usage ({@link reservationUsage}). A string says why it
 * cannot be priced; a promise, while a price function's promise settles.
 */
export function reservationFor(budget: SharedBudget, price: PriceUsage | undefined, ctx: AttemptContext): number | string | Promise<number | string> {
  if (budget.reserveUsd !== undefined) return budget.reserveUsd
  if (price === undefined) return NO_PRICING
  return priceOrReason(price, reservationUsage(ctx.request, budget.assumedOutputTokens), ctx.model, ctx.provider)
}

/**
 * An upper bound of a request's usage: input tokens at most the UTF-8 bytes of everything sent (no
 * tokenizer makes more tokens than bytes) plus a per-message overhead, output tokens at most
 * `maxTokens` (`assumedOutputTokens` when the request sets none).
 */
export function reservationUsage(request: ModelRequest, assumedOutputTokens: number): Usage {
  let bytes = utf8Bytes(request.system)
  for (const m of request.messages) {
    bytes += utf8Bytes(m.content) + TOKENS_PER_MESSAGE
    if (m.toolCalls !== undefined) bytes += jsonBytes(m.toolCalls)
  }
  if (request.tools !== undefined) bytes += jsonBytes(request.tools)
  if (request.responseSchema !== undefined) bytes += jsonBytes(request.responseSchema)
  const max = request.maxTokens
  const outputTokens = typeof max === 'number' && Number.isFinite(max) && max > 0 ? Math.ceil(max) : assumedOutputTokens
  return { inputTokens: bytes + TOKENS_PER_MESSAGE, outputTokens }
}

/**
 * What to change when a reservation alone cannot fit what is left of the budget (a $0.10 budget
 * reserving the price of 4,096 output tokens refuses every call): the option that sets it, named.
 * Empty when the budget is simply spent.
 */
export function reservationAdvice(budget: SharedBudget, request: ModelRequest, amount: number, spent: number): string {
  if (spent >= budget.usd || amount <= budget.usd - spent) return ''
  if (budget.reserveUsd !== undefined) return `: the fixed reserveUsd ($${budget.reserveUsd}) is more than the budget has left; lower sharedBudget's reserveUsd`
  const { inputTokens, outputTokens } = reservationUsage(request, budget.assumedOutputTokens)
  const source =
    typeof request.maxTokens === 'number' && Number.isFinite(request.maxTokens) && request.maxTokens > 0
      ? `the request's maxTokens (${outputTokens})`
      : `sharedBudget's assumedOutputTokens (${outputTokens}), as the request sets no maxTokens`
  return `: the reservation prices at most ${inputTokens} input tokens and ${source} output tokens; set a lower maxTokens on the request, a lower assumedOutputTokens on sharedBudget, or a fixed reserveUsd`
}

function utf8Bytes(text: unknown): number {
  return typeof text === 'string' ? utf8Length(text) : 0
}
