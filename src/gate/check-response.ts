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
 * agent's business, unless the answer was cut: then they are never run). An answer cut by the token limit (stop reason `max_tokens`) is never accepted
 * as complete: its kind is `truncated` (so `retryTruncated` / `truncatedFailFast` decide), and with
 * a schema it also fails validation with feedback saying it was cut (no repair is tried on it).
 * Any other failure is `schema-fail`. Synchronous unless the schema answers with a promise: this
 * runs on every attempt.
 */
export function checkResponse<T>(
  response: ModelResponse,
  schema: CompiledSchema<T> | undefined,
  repair: boolean,
  parsed?: { readonly value: unknown },
): ResponseCheck<T> | Promise<ResponseCheck<T>> {
  // Tool calls cut by the token limit are never run: Anthropic hands back a cut call's input parsed as far as it got.
  if (response.toolCalls.length > 0 && response.stopReason !== 'max_tokens') return { kind: 'ok', value: undefined, failure: undefined, repairs: NO_REPAIRS }
  const truncated = response.stopReason === 'max_tokens'
  const verdict = validateFinalAnswer(response.content, schema, parsed === undefined ? { repair, truncated } : { repair, truncated, parsed })
  if (verdict instanceof Promise) return verdict.then((v) => toCheck(v, response))
  return toCheck(verdict, response)
}

function toCheck<T>(verdict: Awaited<ReturnType<typeof validateFinalAnswer<T>>>, response: ModelResponse): ResponseCheck<T> {
  const truncated = response.stopReason === 'max_tokens'
  if (!verdict.ok) return { kind: truncated ? 'truncated' : 'schema-fail', value: undefined, failure: verdict.failure, repairs: NO_REPAIRS }
  // Only a text without a schema gets here cut: it is the value, but not a complete one.
  const kind: ErrorKind = truncated ? 'truncated' : 'ok'
  return { kind, value: verdict.value, failure: undefined, repairs: verdict.repairs ?? NO_REPAIRS }
}
