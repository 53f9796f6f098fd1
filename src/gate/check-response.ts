import type { ErrorKind } from '../model/error-kind.ts'
import type { ModelResponse } from '../model/response.ts'
import { summarizeFailure } from '../validation/feedback/summarize-failure.ts'
import { validateFinalAnswer, type CompiledSchema } from '../validation/index.ts'
import { ValidationFailure } from '../validation/validation-failure.ts'
import { cutViolationOf } from './stream/aborted-response.ts'

/** The validation verdict on one response, with the error kind it implies. */
export interface ResponseCheck<T> {
  readonly kind: ErrorKind
  readonly value: T | string | undefined
  readonly failure: ValidationFailure | undefined
  /** Repairs applied to the JSON before it passed the schema (empty when none). */
  readonly repairs: readonly string[]
}

const NO_REPAIRS: readonly string[] = Object.freeze([])
// The verdicts on a tool-call turn (never checked against the output schema): shared, read-only.
const CALLS: ResponseCheck<never> = Object.freeze({ kind: 'ok', value: undefined, failure: undefined, repairs: NO_REPAIRS })
const CUT_CALLS: ResponseCheck<never> = Object.freeze({ kind: 'truncated', value: undefined, failure: undefined, repairs: NO_REPAIRS })

/**
 * Validates a response: only a final turn is checked against the output schema (tool calls are the
 * agent's business). An answer cut by the token limit (stop reason `max_tokens`) is never accepted
 * as complete: its kind is `truncated` (so `retryTruncated` / `truncatedFailFast` decide), and with
 * a schema it also fails validation with feedback saying it was cut (no repair is tried on it). A
 * tool-call turn cut there is `truncated` too: its last call's arguments may be cut (`{"order": "4"`
 * of `"42"`), and a tool must never run on them. Any other failure is `schema-fail`. Synchronous
 * unless the schema answers with a promise: this runs on every attempt.
 */
export function checkResponse<T>(
  response: ModelResponse,
  schema: CompiledSchema<T> | undefined,
  repair: boolean,
  parsed?: { readonly value: unknown },
): ResponseCheck<T> | Promise<ResponseCheck<T>> {
  const truncated = response.stopReason === 'max_tokens'
  if (response.toolCalls.length > 0) return truncated ? CUT_CALLS : CALLS
  const verdict = validateFinalAnswer(response.content, schema, parsed === undefined ? { repair, truncated } : { repair, truncated, parsed })
  if (verdict instanceof Promise) return verdict.then((v) => toCheck(v, response))
  return toCheck(verdict, response)
}

function toCheck<T>(verdict: Awaited<ReturnType<typeof validateFinalAnswer<T>>>, response: ModelResponse): ResponseCheck<T> {
  const truncated = response.stopReason === 'max_tokens'
  if (!verdict.ok)
    return { kind: truncated ? 'truncated' : 'schema-fail', value: undefined, failure: onlyWhatWasRead(verdict.failure, response), repairs: NO_REPAIRS }
  // Only a text without a schema gets here cut: it is the value, but not a complete one.
  const kind: ErrorKind = truncated ? 'truncated' : 'ok'
  return { kind, value: verdict.value, failure: undefined, repairs: verdict.repairs ?? NO_REPAIRS }
}

/**
 * The failure of an answer a progressive stream cut on a violation, without the fields it is said to
 * miss that may still have been coming (the stream stopped before them): a model told that `action`
 * is missing when it had not reached it yet would be told something false. Any other failure as it is.
 */
function onlyWhatWasRead(failure: ValidationFailure, response: ModelResponse): ValidationFailure {
  const violation = cutViolationOf(response)
  if (violation === undefined) return failure
  const read = failure.issues.filter((issue) => issue.code !== 'missing_required' || (violation.code === 'missing_required' && issue.path === violation.path))
  if (read.length === failure.issues.length || read.length === 0) return failure
  const { stage, rawOutput, parseError, parsed, truncated } = failure
  return new ValidationFailure({ stage, message: summarizeFailure(stage, read, parseError), issues: read, rawOutput, parseError, parsed, truncated })
}
