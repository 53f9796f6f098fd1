import type { EventHub } from '../../events/event-hub.ts'
import { eventTags } from '../../events/event-tags.ts'
import { ATTEMPT_SLOT, type AttemptSlot } from '../../policies/attempt-slot.ts'
import { priceAttempt } from '../../policies/meter.ts'
import type { Stage } from '../../policies/stage.ts'
import type { AttemptContext, AttemptResult } from '../../policies/middleware.ts'
import type { PriceUsage } from '../../policies/pricing/price-usage.ts'
import { finiteUsage, isSoundUsage } from '../../policies/usage-estimate.ts'
import { responseOf } from '../response-shape.ts'
import { warnOnce } from '../warn-once.ts'
import type { GateSlot } from './attempt-slot.ts'

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
 * (`cost_tick`, and `cost_unknown` or a process warning when it cannot be priced). The policies
 * outside it (the budget) and the attempt's outcome read its reading from the attempt's slot.
 */
export function meterStage(settings: MeterSettings): Stage {
  return { name: 'meter', leave: (ctx, _token, result) => meterAnswer(settings, ctx, result) }
}

/** The meter's reading of one answered attempt (the link's body): left in the slot and reported; the shape-checked result handed back. */
export function meterAnswer(settings: MeterSettings, ctx: AttemptContext, result: AttemptResult): AttemptResult {
  const { events, priceUsage, needsPrice } = settings
  const response = responseOf(result, ctx.provider)
  const reported = response.usage
  const usage = isSoundUsage(reported) ? reported : finiteUsage(reported, ctx.request, response)
  const metered = priceAttempt(priceUsage, needsPrice, usage, ctx.model, ctx.provider, response)
  const slot = (ctx as AttemptContext & { readonly [ATTEMPT_SLOT]?: AttemptSlot })[ATTEMPT_SLOT]
  // Not into an attempt that already ended: the outcome the loop took is never written again.
  if (slot !== undefined && !slot.closed) slot.metered = metered
  if (metered.unpriced !== undefined) costUnknown(settings, ctx, metered.unpriced, usage)
  if (events.has('cost_tick')) {
    events.emit('cost_tick', {
      runId: ctx.runId,
      ...eventTags(ctx.turn, ctx.metadata),
      attempt: ctx.attempt,
      provider: ctx.provider,
      model: ctx.model,
      attemptCostUsd: metered.costUsd,
      // Only the loop adds to the run's meter, once the attempt ended: it holds the cost before this one.
      cumulativeCostUsd: costBefore(slot) + metered.costUsd,
      usage,
    })
  }
  return response === (result as AttemptResult).response ? (result as AttemptResult) : { response }
}

/** The run's cost before this attempt: none for a slot that is not the gate's (a link called on its own). */
function costBefore(slot: AttemptSlot | undefined): number {
  return (slot as Partial<GateSlot<unknown>> | undefined)?.run?.meter.costUsd ?? 0
}

/** Reports an attempt that could not be priced: `cost_unknown`, or a process warning (once per reason) when nobody listens. */
function costUnknown(settings: MeterSettings, ctx: AttemptContext, reason: string, usage: AttemptResult['response']['usage']): void {
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
