import { emitValidationFailed } from '../../events/validation-failed-event.ts'
import type { Stage } from '../../policies/stage.ts'
import { isThenable, settleUser } from '../../model/user-code.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { ValidationFailure } from '../../validation/validation-failure.ts'
import { NOT_PARSED } from '../../validation/json/parse-json-fast.ts'
import { checkResponse, type ResponseCheck } from '../check-response.ts'
import { isRefusal } from '../refusal.ts'
import { answerSchema } from '../output-mode/answer-schema.ts'
import { acceptWhole, NotAccepted, type TestedSchema } from '../whole-answer.ts'
import type { GateAttempt } from './gate-attempt.ts'

const NO_REPAIRS: readonly string[] = Object.freeze([])
const REFUSAL: ResponseCheck<never> = Object.freeze({ kind: 'refusal', value: undefined, failure: undefined, repairs: NO_REPAIRS })

/**
 * The check, a stage of the attempt chain inside the deadline: extract, repair and validate the
 * answer the meter let through, with `repaired` and `validation_failed` emitted before any rule
 * decides. The common case, a complete final answer whose whole text is a JSON value the compiled
 * schema accepts, builds nothing. A schema that answers with a promise (or any thenable) is awaited
 * at the user-code boundary, bounded by the attempt's signal (the deadline, the run's signal).
 */
export const CHECK_STAGE: Stage<undefined, GateAttempt<unknown>> = Object.freeze({
  name: 'check',
  leave: (attempt: GateAttempt<unknown>, _token: undefined, response: ModelResponse) => checkAnswer(attempt, response),
})

/** The check of one answered attempt (the stage's body): its verdict written on the attempt, `response` handed back (later, for an async schema). */
export function checkAnswer<T>(attempt: GateAttempt<T>, response: ModelResponse): ModelResponse | Promise<ModelResponse> {
  // An answer that came after its attempt ended: the outcome the loop took is never written again.
  if (attempt.closed) return response
  if (isRefusal(response)) return written(attempt, REFUSAL, response)
  // A native answer is mapped back to the output schema's shape before it is judged.
  const schema = answerSchema(attempt.run.g.outputModes, attempt.run.settings.schema, attempt.request)
  let parsed: unknown = NOT_PARSED
  if (schema?.test !== undefined) {
    const whole = acceptWhole(schema as TestedSchema<T>, response)
    if (!(whole instanceof NotAccepted)) {
      attempt.kind = 'ok'
      attempt.value = whole as T
      return response
    }
    parsed = whole.parsed
  }
  // A whole answer that parsed but failed the schema is not parsed again to say why.
  const verdict = checkResponse(response, schema, attempt.run.g.repair, parsed === NOT_PARSED ? undefined : { value: parsed })
  if (!isThenable(verdict)) return written(attempt, verdict, response)
  return settleUser(verdict, attempt.request.signal).then((r) => {
    if (!r.ok) throw r.error
    return written(attempt, r.value, response)
  })
}

/** The verdict written on the attempt (unless it ended meanwhile), and reported. */
function written<T>(attempt: GateAttempt<T>, check: ResponseCheck<T>, response: ModelResponse): ModelResponse {
  if (attempt.closed) return response
  attempt.kind = check.kind
  attempt.value = check.value
  attempt.failure = check.failure
  attempt.repairs = check.repairs
  const run = attempt.run
  const events = run.g.events
  if (check.repairs.length > 0 && events.has('repaired')) {
    events.emit('repaired', { runId: run.runId, ...run.tags, attempt: attempt.attempt, provider: attempt.provider, repairs: check.repairs })
  }
  if (check.failure !== undefined && events.has('validation_failed')) reportFailure(attempt, check.failure)
  return response
}

function reportFailure<T>(attempt: GateAttempt<T>, failure: ValidationFailure): void {
  const { runId, tags, settings, history, base, g } = attempt.run
  // This failure joins the run's history once the loop takes the outcome: counted here already.
  const cumulativeRetries = settings.failuresBefore + history.length + 1
  emitValidationFailed(g.events, { runId, tags, provider: attempt.provider, model: base.model, attempt: attempt.attempt, cumulativeRetries }, failure)
}
