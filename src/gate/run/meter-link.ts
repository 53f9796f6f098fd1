import type { ModelResponse } from '../../model/response.ts'
import { NO_PRICE_TABLE, NO_PRICING, priceOrReason } from '../../policies/meter.ts'
import type { Stage } from '../../policies/stage.ts'
import { finiteUsage, isSoundUsage } from '../../policies/usage-estimate.ts'
import { checkedResponse } from '../response-shape.ts'
import type { GateAttempt } from './gate-attempt.ts'
import { type MeterSettings, metered } from './meter-report.ts'

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

/**
 * The meter's reading of one answered attempt (the stage's body): written on the attempt and reported; the shape-checked
 * response handed back (once a price function that answered a promise settled).
 */
export function meterAnswer(settings: MeterSettings, attempt: GateAttempt<unknown>, answer: unknown): ModelResponse | Promise<ModelResponse> {
  const { priceUsage, needsPrice } = settings
  const response = checkedResponse(answer, attempt.provider)
  const reported = response.usage
  const usage = isSoundUsage(reported) ? reported : finiteUsage(reported, attempt.request, response)
  // Not into an attempt that already ended: the outcome the loop took is never written again.
  if (!attempt.closed) attempt.response = response
  // Unpriced is not free: without any price the attempt says so, whether or not a budget needs one.
  const priced = priceUsage === undefined ? (needsPrice ? NO_PRICING : NO_PRICE_TABLE) : priceOrReason(priceUsage, usage, attempt.model, attempt.provider)
  if (typeof priced !== 'object') {
    metered(settings, attempt, usage, priced)
    return response
  }
  return priced.then((settled) => {
    metered(settings, attempt, usage, settled)
    return response
  })
}
