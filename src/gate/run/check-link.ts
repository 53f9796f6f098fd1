import { emitValidationFailed } from '../../events/validation-failed-event.ts'
import type { Stage } from '../../policies/stage.ts'
import type { AttemptContext, AttemptResult } from '../../policies/middleware.ts'
import { isThenable, settleUser } from '../../model/user-code.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { ValidationFailure } from '../../validation/validation-failure.ts'
import { NOT_PARSED } from '../../validation/json/parse-json-fast.ts'
import { checkResponse, type ResponseCheck } from '../check-response.ts'
import { isRefusal } from '../refusal.ts'
import { answerSchema } from '../output-mode/answer-schema.ts'
import { acceptWhole, NotAccepted, type TestedSchema } from '../whole-answer.ts'
import { gateSlot, type GateSlot } from './attempt-slot.ts'

const NO_REPAIRS: readonly string[] = Object.freeze([])
const REFUSAL: ResponseCheck<never> = Object.freeze({ kind: 'refusal', value: undefined, failure: undefined, repairs: NO_REPAIRS })
// The verdict of a whole answer the compiled schema accepted at once, shared: its value goes to the slot beside it (about 60 B an attempt).
const ACCEPTED_WHOLE: ResponseCheck<never> = Object.freeze({ kind: 'ok', value: undefined, failure: undefined, repairs: NO_REPAIRS })

/**
 * The check, a stage of the attempt chain inside the deadline: extract, repair and validate the
 * answer the meter let through, with `repaired` and `validation_failed` emitted before any rule
 * decides. The common case, a complete final answer whose whole text is a JSON value the compiled
 * schema accepts, builds nothing. A schema that answers with a promise (or any thenable) is awaited
 * at the user-code boundary, bounded by the attempt's signal (the deadline, the run's signal).
 */
export const CHECK_STAGE: Stage = Object.freeze({
  name: 'check',
  leave: (ctx: AttemptContext, _token: unknown, result: AttemptResult) => checkAnswer(ctx, result),
})

/** The check of one answered attempt (the link's body): its verdict left in the slot, `result` handed back (later, for an async schema). */
export function checkAnswer(ctx: AttemptContext, result: AttemptResult): AttemptResult | Promise<AttemptResult> {
  const slot = gateSlot<unknown>(ctx)
  // An answer that came after its attempt ended: the outcome the loop took is never written again.
  if (slot.closed) return result
  const response = slot.metered?.response ?? result.response
  const verdict = checked(slot, response, ctx.request)
  if (!isThenable(verdict)) {
    settle(slot, verdict, ctx.attempt)
    return result
  }
  return settleUser(verdict, ctx.request.signal).then((r) => {
    if (!r.ok) throw r.error
    settle(slot, r.value, ctx.attempt)
    return result
  })
}

function checked<T>(slot: GateSlot<T>, response: ModelResponse, request: ModelRequest): ResponseCheck<T> | PromiseLike<ResponseCheck<T>> {
  if (isRefusal(response)) return REFUSAL
  const run = slot.run
  // A native answer is mapped back to the output schema's shape before it is judged.
  const schema = answerSchema(run.g.outputModes, run.schema, request)
  let parsed: unknown = NOT_PARSED
  if (schema?.test !== undefined) {
    const whole = acceptWhole(schema as TestedSchema<T>, response)
    if (!(whole instanceof NotAccepted)) {
      slot.value = whole as T
      return ACCEPTED_WHOLE
    }
    parsed = whole.parsed
  }
  // A whole answer that parsed but failed the schema is not parsed again to say why.
  return checkResponse(response, schema, run.g.repair, parsed === NOT_PARSED ? undefined : { value: parsed })
}

function settle<T>(slot: GateSlot<T>, check: ResponseCheck<T>, attempt: number): void {
  if (slot.closed) return
  slot.checked = check
  if (check !== ACCEPTED_WHOLE) slot.value = check.value
  const run = slot.run
  const events = run.g.events
  if (check.repairs.length > 0 && events.has('repaired')) {
    events.emit('repaired', { runId: run.runId, ...run.tags, attempt, provider: providerName(slot), repairs: check.repairs })
  }
  if (check.failure !== undefined && events.has('validation_failed')) reportFailure(slot, check.failure, attempt)
}

function reportFailure<T>(slot: GateSlot<T>, failure: ValidationFailure, attempt: number): void {
  const run = slot.run
  const from = { runId: run.runId, tags: run.tags, provider: providerName(slot), model: run.base.model }
  // This failure joins the run's history once the loop takes the outcome: counted here already.
  emitValidationFailed(run.g.events, from, failure, attempt, run.failuresBefore + run.history.length + 1)
}

function providerName<T>(slot: GateSlot<T>): string {
  return (slot.run.g.providers[slot.run.providerIdx] as { readonly name: string }).name
}
