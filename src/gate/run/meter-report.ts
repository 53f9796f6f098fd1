import { eventTags } from '../../events/event-tags.ts'
import type { Usage } from '../../model/usage.ts'
import { warnOnce } from '../warn-once.ts'
import type { GateAttempt } from './gate-attempt.ts'
import type { EventHub } from '../../events/event-hub.ts'
import type { PriceUsage } from '../../policies/pricing/price-usage.ts'

/** What the meter reads of the gate: how to price, and where to report. */
export interface MeterSettings {
  readonly events: EventHub
  readonly priceUsage: PriceUsage | undefined
  /** A budget relies on prices: attempts are unpriced (and reported) even without a price function. */
  readonly needsPrice: boolean
  readonly warned: Set<string>
}

/** The usage and price of an attempt, written on it (unless it ended) and reported: `cost_unknown` when unpriced, `cost_tick`. */
export function metered(settings: MeterSettings, attempt: GateAttempt<unknown>, usage: Usage, priced: number | string): void {
  const events = settings.events
  const costUsd = typeof priced === 'number' ? priced : 0
  if (!attempt.closed) {
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
