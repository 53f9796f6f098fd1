import type { ErrorKind } from '../model/error-kind.ts'
import type { ModelResponse } from '../model/response.ts'
import { validateFinalAnswer, type CompiledSchema } from '../validation/index.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'

/** The validation verdict on one response, with the error kind it implies. */
export interface ResponseCheck<T> {
  readonly kind: ErrorKind
  readonly value: T | string | undefined
  readonly failure: ValidationFailure | undefined
  /** Repairs applied to the JSON before it passed the schema (empty when none). */
  readonly repairs: readonly string[]
}

const NO_REPAIRS: readonly string[] = Object.freeze([])

/**
 * Validates a response: only a final turn is checked against the output schema (tool calls are the
 * agent's business). A failure cut by the token limit is `truncated`, any other is `schema-fail`.
 * Synchronous unless the schema answers with a promise: this runs on every attempt.
 */
export function checkResponse<T>(
  response: ModelResponse,
  schema: CompiledSchema<T> | undefined,
  repair: boolean,
): ResponseCheck<T> | Promise<ResponseCheck<T>> {
  if (response.toolCalls.length > 0) return { kind: 'ok', value: undefined, failure: undefined, repairs: NO_REPAIRS }
  const verdict = validateFinalAnswer(response.content, schema, { repair })
  if (verdict instanceof Promise) return verdict.then((v) => toCheck(v, response, schema))
  return toCheck(verdict, response, schema)
}

function toCheck<T>(
  verdict: Awaited<ReturnType<typeof validateFinalAnswer<T>>>,
  response: ModelResponse,
  schema: CompiledSchema<T> | undefined,
): ResponseCheck<T> {
  const truncated = response.stopReason === 'max_tokens'
  if (!verdict.ok) return { kind: truncated ? 'truncated' : 'schema-fail', value: undefined, failure: verdict.failure, repairs: NO_REPAIRS }
  // Without a schema a cut answer cannot prove it is complete.
  const kind: ErrorKind = truncated && schema === undefined ? 'truncated' : 'ok'
  return { kind, value: verdict.value, failure: undefined, repairs: verdict.repairs ?? NO_REPAIRS }
}
