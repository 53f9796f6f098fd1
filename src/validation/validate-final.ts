import { summarizeFailure } from './feedback/summarize-failure.ts'
import { extractJson, type JsonSource } from './json/extract-json.ts'
import type { JsonLimits } from './json/json-limits.ts'
import type { CompiledSchema, SchemaResult } from './schema/compiled-schema.ts'
import { ValidationFailure } from './validation-failure.ts'

/** Options of {@link validateFinalAnswer}. */
export interface ValidateFinalOptions extends JsonLimits {
  /** Try the deterministic repair stage before a parse failure counts. @default false */
  readonly repair?: boolean
}

/** The verdict on a final answer: the typed value (or the text, without a schema), or a failure. */
export type FinalAnswerResult<T> =
  | {
      readonly ok: true
      readonly value: T | string
      readonly extractedFrom?: JsonSource
      /** Repairs applied before the value passed the schema; absent or empty when none. */
      readonly repairs?: readonly string[]
    }
  | { readonly ok: false; readonly failure: ValidationFailure }

/**
 * Validates a model's final answer: without a schema the text itself is the value; with one, the
 * JSON value is extracted and then checked. Synchronous unless the schema answers with a promise,
 * since this runs on every model response.
 *
 * @example
 * const verdict = validateFinalAnswer(response.content, compileSchema(Refund))
 */
export function validateFinalAnswer<T>(
  content: string,
  schema: CompiledSchema<T> | undefined,
  options?: ValidateFinalOptions,
): FinalAnswerResult<T> | Promise<FinalAnswerResult<T>> {
  if (schema === undefined) return { ok: true, value: content }
  const extracted = extractJson(content, options)
  if (!extracted.ok) {
    const issues = extracted.issue === undefined ? [] : [extracted.issue]
    const failure = new ValidationFailure({
      stage: 'json-parse',
      message: summarizeFailure('json-parse', [], extracted.message),
      issues,
      rawOutput: content,
      parseError: extracted.message,
    })
    return { ok: false, failure }
  }
  const verdict = schema.validate(extracted.value)
  if (verdict instanceof Promise) return verdict.then((settled) => toFinal(settled, extracted.source, content, extracted.value))
  return toFinal(verdict, extracted.source, content, extracted.value)
}

function toFinal<T>(verdict: SchemaResult<T>, source: JsonSource, content: string, parsed: unknown): FinalAnswerResult<T> {
  if (verdict.ok) return { ok: true, value: verdict.value, extractedFrom: source }
  const failure = new ValidationFailure({
    stage: 'schema-validate',
    message: summarizeFailure('schema-validate', verdict.issues),
    issues: verdict.issues,
    rawOutput: content,
    parsed,
  })
  return { ok: false, failure }
}
