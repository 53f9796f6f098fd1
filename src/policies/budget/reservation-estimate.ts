import type { ModelRequest } from '../../model/request.ts'
import type { Usage } from '../../model/usage.ts'
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
 * cannot be priced.
 */
export function reservationFor(
  budget: SharedBudget,
  price: PriceUsage | undefined,
  ctx: AttemptContext,
): { readonly usd: number | string; readonly usage: Usage } {
  const usage = reservationUsage(ctx.request, budget.assumedOutputTokens)
  if (budget.reserveUsd !== undefined) return { usd: budget.reserveUsd, usage }
  if (price === undefined) return { usd: NO_PRICING, usage }
  return { usd: priceOrReason(price, usage, ctx.model, ctx.provider), usage }
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
    if (m.toolCalls !== undefined) bytes += utf8Bytes(json(m.toolCalls))
  }
  if (request.tools !== undefined) bytes += utf8Bytes(json(request.tools))
  if (request.responseSchema !== undefined) bytes += utf8Bytes(json(request.responseSchema))
  const max = request.maxTokens
  const outputTokens = typeof max === 'number' && Number.isFinite(max) && max > 0 ? Math.ceil(max) : assumedOutputTokens
  return { inputTokens: bytes + TOKENS_PER_MESSAGE, outputTokens }
}

function utf8Bytes(text: unknown): number {
  return typeof text === 'string' ? utf8Length(text) : 0
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return ''
  }
}
