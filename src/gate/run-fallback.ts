import { messageOf } from '../model/message-of.ts'
import type { ModelResponse } from '../model/response.ts'
import { ZERO_USAGE } from '../model/usage.ts'
import { raceAbort } from '../model/race-abort.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import type { RunView } from './run/run-view.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import { checkResponse, type ResponseCheck } from './check-response.ts'
import type { FallbackAnswer } from './gate-config.ts'
import { isRefusal } from './refusal.ts'
import { responseShapeProblem, withSafeArgs } from './response-shape.ts'
import { callAsPromise } from '../model/call-as-promise.ts'

/** The fallback's verdict: an accepted answer, or why it could not be used. */
export type FallbackVerdict<T> =
  | { readonly ok: true; readonly response: ModelResponse; readonly value: T | string | undefined }
  | {
      readonly ok: false
      readonly kind: 'fallback-failed' | 'fallback-invalid' | 'aborted'
      readonly reason: string
      readonly cause?: unknown
      readonly failure?: ValidationFailure
    }

/**
 * Calls the configured fallback of `run` and accepts its answer only as the gate accepts a model answer
 * (`checkResponse`): a refusal, an answer cut by the token limit (even without a schema) or one
 * failing the schema is `fallback-invalid`, and so is an answer that is neither a string nor a
 * `ModelResponse` (`null`, a number, an object of another shape); a fallback still pending when the
 * run's signal aborts is `aborted`. A tool-call turn is accepted as the main attempt's is, its
 * arguments holding a forbidden key (`__proto__`) handed on as their JSON text, as a provider's are.
 */
export async function runFallback<T>(
  run: RunView<T>,
  fallback: (scope: ReliabilityScope) => FallbackAnswer | Promise<FallbackAnswer>,
  scope: ReliabilityScope,
): Promise<FallbackVerdict<T>> {
  const { signal } = run
  const schema = run.settings.schema
  const repair = run.g.repair
  let answer: unknown
  try {
    answer = await raceAbort(callAsPromise(fallback, scope, undefined), signal)
  } catch (error) {
    if (signal?.aborted === true) return { ok: false, kind: 'aborted', reason: 'the run was aborted while the fallback was answering', cause: error }
    return { ok: false, kind: 'fallback-failed', reason: `the fallback threw: ${messageOf(error)}`, cause: error }
  }
  const problem = typeof answer === 'string' ? undefined : responseShapeProblem(answer)
  if (problem !== undefined) {
    return { ok: false, kind: 'fallback-invalid', reason: `the fallback answered neither a string nor a ModelResponse: ${problem}` }
  }
  let response: ModelResponse
  try {
    // Tool arguments holding a forbidden key go on as their JSON text, as a provider's do.
    response = typeof answer === 'string' ? { content: answer, toolCalls: [], usage: ZERO_USAGE, stopReason: 'end' } : withSafeArgs(answer as ModelResponse)
  } catch {
    return { ok: false, kind: 'fallback-invalid', reason: 'the fallback answered neither a string nor a ModelResponse: its tool calls cannot be read' }
  }
  if (isRefusal(response)) return { ok: false, kind: 'fallback-invalid', reason: 'the fallback refused to answer (stop reason content_filter)' }
  let check: ResponseCheck<T>
  try {
    check = await raceAbort(Promise.resolve(checkResponse(response, schema, repair)), signal)
  } catch (error) {
    if (signal?.aborted === true)
      return { ok: false, kind: 'aborted', reason: 'the run was aborted while the fallback answer was being validated', cause: error }
    return { ok: false, kind: 'fallback-invalid', reason: `the fallback's answer could not be validated: ${messageOf(error)}`, cause: error }
  }
  if (check.kind === 'ok') return { ok: true, response, value: check.value }
  const reason =
    check.failure !== undefined
      ? `the fallback's answer failed validation: ${check.failure.message}`
      : "the fallback's answer was cut by the token limit (stop reason max_tokens)"
  return { ok: false, kind: 'fallback-invalid', reason, ...(check.failure !== undefined ? { failure: check.failure } : {}) }
}
