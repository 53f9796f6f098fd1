import type { EventHub } from '../events/event-hub.ts'
import { eventTags } from '../events/event-tags.ts'
import { breakerLink, breakerResult } from '../policies/breaker/breaker-link.ts'
import { circuitBreaker, isCircuitBreaker } from '../policies/breaker/circuit-breaker.ts'
import { BUDGET_STORE_FAILED, budgetLink } from '../policies/budget/budget-link.ts'
import type { BreakerResult } from '../policies/breaker/breaker-permit.ts'
import { compose, type Chain } from '../policies/compose.ts'
import { deadline } from '../policies/deadline/deadline.ts'
import type { Middleware } from '../policies/middleware.ts'
import type { PriceUsage } from '../policies/pricing/price-usage.ts'
import { rateLimitLink } from '../policies/rate-limit/rate-limit-link.ts'
import { isProviderError } from '../model/provider-error.ts'
import { classifyError } from './classify-error.ts'
import { warnOnce } from './warn-once.ts'
import type { GateConfig } from './gate-config.ts'

/**
 * The attempt chain of a gate, composed once: rate limit -> breaker -> budget -> deadline -> the
 * user's links -> (the provider call, supplied per run). Only configured policies are links, so a
 * gate without any pays nothing for them.
 */
export function buildChain(
  config: GateConfig<unknown>,
  events: EventHub,
  price: PriceUsage | undefined,
  timeoutMs: number | undefined,
  warned: Set<string>,
): { readonly chain: Chain; readonly linked: boolean } {
  const links: Middleware[] = []
  if (config.rateLimit !== undefined) links.push(rateLimitLink(config.rateLimit))
  if (config.breaker !== undefined && config.breaker !== false) {
    const breaker = isCircuitBreaker(config.breaker) ? config.breaker : circuitBreaker(config.breaker)
    links.push(
      breakerLink(breaker, judgeForBreaker, (t, ctx) => {
        if (events.has('breaker_state')) {
          events.emit('breaker_state', {
            runId: ctx.runId,
            ...eventTags(ctx.turn, ctx.metadata),
            provider: t.provider,
            from: t.from,
            to: t.to,
            failures: t.failures,
          })
        }
      }),
    )
  }
  if (config.budget !== undefined) {
    const budget = config.budget
    links.push(
      budgetLink(
        budget,
        price,
        (spentUsd, ctx) => {
          if (events.has('budget_exceeded')) {
            events.emit('budget_exceeded', { runId: ctx.runId, ...eventTags(ctx.turn, ctx.metadata), budgetUsd: budget.usd, spentUsd, action: 'halt' })
          }
        },
        (ctx, reason, usage) => {
          if (events.has('cost_unknown')) {
            events.emit('cost_unknown', {
              runId: ctx.runId,
              ...eventTags(ctx.turn, ctx.metadata),
              attempt: ctx.attempt,
              provider: ctx.provider,
              model: ctx.model,
              source: 'shared-budget',
              reason,
              usage,
            })
          } else {
            warnOnce(
              warned,
              `budget\u0000${ctx.provider}\u0000${reason}`,
              `reliability-gate: the shared budget "${budget.key}" could not price an attempt of provider "${ctx.provider}": ${reason}.`,
            )
          }
        },
      ),
    )
  }
  if (timeoutMs !== undefined) links.push(deadline(timeoutMs))
  for (const [i, link] of (config.middleware ?? []).entries()) {
    if (typeof link !== 'function')
      throw new TypeError(`createGate: middleware[${i}] must be a function (ctx, next) => Promise<{ response }>, got ${typeof link}`)
    links.push(link)
  }
  return { chain: compose(links), linked: links.length > 0 }
}

/** A store failure of the budget says nothing about the provider; anything else is classified. */
function judgeForBreaker(error: unknown): BreakerResult {
  if (isProviderError(error) && error.code === BUDGET_STORE_FAILED) return 'ignored'
  return breakerResult(classifyError(error).kind)
}
