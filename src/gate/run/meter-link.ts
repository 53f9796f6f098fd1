import type { ModelResponse } from '../../model/response.ts'
import type { EventHub } from '../../events/event-hub.ts'
import { eventTags } from '../../events/event-tags.ts'
import type { Usage } from '../../model/usage.ts'
import { NO_PRICE_TABLE, NO_PRICING, priceOrReason } from '../../policies/meter.ts'
import type { Stage } from '../../policies/stage.ts'
import type { PriceUsage } from '../../policies/pricing/price-usage.ts'
import { finiteUsage, isSoundUsage } from '../../policies/usage-estimate.ts'
import { checkedResponse } from '../response-shape.ts'
import { warnOnce } from '../warn-once.ts'
import type { GateAttempt } from './gate-attempt.ts'

/** What the meter reads of the gate: how to price, and where to report. */
export interface MeterSettings {
  readonly events: EventHub
  readonly priceUsage: PriceUsage | undefined
  /** A budget relies on prices: attempts are unpriced (and reported) even without a price function. */
  readonly needsPrice: boolean
  readonly warned: Set<string>
}

/**
 * The meter, a stage of the attempt chain just outside the user's links: it checks the shape of what
 * they (or the provider) answered (`malformed-response` otherwise), estimates missing or broken
 * usage from what was sent and answered (never 0), prices the answer once and reports it
 * (`cost_tick`, and `cost_unknown` or a process warning when it cannot be priced). Its reading is
 * written on the attempt, where the policies outside it (the budget) and the attempt's outcome read it,
 * also for a provider's answer a user link then failed the attempt on (it was paid for).
 */
export function meterStage(settings: MeterSettings): Stage<undefined, GateAttempt<unknown>> {
  return {
    name: 'meter',
    leave: (attempt, _token, answer) => meterAnswer(settings, attempt, answer),
    // A user link failed the attempt after the provider answered: that answer was paid for all the same.
    fail: (attempt) => attempt.usage === undefined && attempt.answered !== undefined && meterAnswer(settings, attempt, attempt.answered),
  }
}

/** The meter's reading of one answered attempt (the stage's body): written on the attempt and reported; the shape-checked response handed back. */
export function meterAnswer(settings: MeterSettings, attempt: GateAttempt<unknown>, answer: unknown): ModelResponse {
  const { events, priceUsage, needsPrice } = settings
  const response = checkedResponse(answer, attempt.provider)
  const reported = response.usage
  const usage = isSoundUsage(reported) ? reported : finiteUsage(reported, attempt.request, response)
  // Unpriced is not free: without any price the attempt says so, whether or not a budget needs one.
  const priced = priceUsage === undefined ? (needsPrice ? NO_PRICING : NO_PRICE_TABLE) : priceOrReason(priceUsage, usage, attempt.model, attempt.provider)
  const costUsd = typeof priced === 'number' ? priced : 0
  // Not into an attempt that already ended: the outcome the loop took is never written again.
  if (!attempt.closed) {
    attempt.response = response
    attempt.usage = usage
    attempt.costUsd = costUsd
    attempt.unpriced = typeof priced === 'string' ? priced : undefined
  }
  if (typeof priced === 'string') costUnknown(settings, attempt, priced, usage)
  if (events.has('cost_tick')) {
    events.emit('cost_tick', {
      runId: attempt.runId,
      ...eventTags(attempt.turn, attempt.metadata),
      attempt: attempt.attempt,
      provider: attempt.provider,
      model: attempt.model,
      attemptCostUsd: costUsd,
      // Only the loop adds to the run's meter, once the attempt ended: it holds the cost before this one.
      cumulativeCostUsd: attempt.run.meter.costUsd + costUsd,
      usage,
    })
  }
  return response
}

/** Reports an attempt that could not be priced: `cost_unknown`, or a process warning (once per reason) when nobody listens. */
function costUnknown(settings: MeterSettings, ctx: GateAttempt<unknown>, reason: string, usage: Usage): void {
  const { events } = settings
  if (events.has('cost_unknown')) {
    events.emit('cost_unknown', {
      runId: ctx.runId,
      ...eventTags(ctx.turn, ctx.metadata),
      attempt: ctx.attempt,
      provider: ctx.provider,
      model: ctx.model,
      source: 'meter',
      reason,
      usage,
    })
    return
  }
  // A gate with no prices at all was not asked to price: said to listeners, never warned about.
  if (settings.priceUsage === undefined && !settings.needsPrice) return
  warnOnce(
    settings.warned,
    `${ctx.provider}\u0000${reason}`,
    `reliability-gate: the cost of an attempt of provider "${ctx.provider}" could not be priced: ${reason}. It counts as $0; listen to 'cost_unknown' or set onUnpriced: 'fail' on the budget.`,
  )
}
