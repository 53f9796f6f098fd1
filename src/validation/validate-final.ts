import { summarizeFailure } from './feedback/summarize-failure.ts'
import { extractJson, type JsonSource } from './json/extract-json.ts'
import type { JsonLimits } from './json/json-limits.ts'
import { repairFinalAnswer, type RepairOutcome } from './repair/repair-final-answer.ts'
import type { CompiledSchema, SchemaResult } from './schema/compiled-schema.ts'
import { ValidationFailure } from './validation-failure.ts'

/** Options of {@link validateFinalAnswer}. */
export interface ValidateFinalOptions extends JsonLimits {
  /**
   * Try the deterministic repair stage before a parse or schema failure counts: a repaired value is
   * accepted only if it passes the schema, otherwise the original failure stands.
   * @default false
   */
  readonly repair?: boolean
  /** Longest answer the repair stage works on, in characters. @default 100_000 */
  readonly maxRepairLength?: number
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
 * JSON value is extracted and then checked; with `repair`, a failure first goes through the repair
 * stage. Synchronous unless the schema answers with a promise, since this runs on every response.
 *
 * @example
 * const verdict = validateFinalAnswer(response.content, compileSchema(Refund), { repair: true })
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
    // A refused key is a security verdict, not a syntax slip: never repaired.
    if (options?.repair !== true || extracted.issue !== undefined) return { ok: false, failure }
    return afterRepair(repairFinalAnswer(content, schema, repairOptions(options, undefined)), failure)
  }
  const verdict = schema.validate(extracted.value)
  const settle = (settled: SchemaResult<T>): FinalAnswerResult<T> | Promise<FinalAnswerResult<T>> => {
    const final = toFinal(settled, extracted.source, content, extracted.value)
    // The whole answer parsed as JSON: every repair candidate would yield this same value.
    if (final.ok || options?.repair !== true || extracted.source === 'direct') return final
    return afterRepair(repairFinalAnswer(content, schema, repairOptions(options, extracted.candidate)), final.failure)
  }
  return verdict instanceof Promise ? verdict.then(settle) : settle(verdict)
}

function repairOptions(options: ValidateFinalOptions, skip: string | undefined) {
  return { maxDepth: options.maxDepth, maxLength: options.maxLength, maxRepairLength: options.maxRepairLength, skip }
}

function afterRepair<T>(
  outcome: RepairOutcome<T> | Promise<RepairOutcome<T>>,
  failure: ValidationFailure,
): FinalAnswerResult<T> | Promise<FinalAnswerResult<T>> {
  const settle = (o: RepairOutcome<T>): FinalAnswerResult<T> => (o.ok ? { ok: true, value: o.value, repairs: o.repairs } : { ok: false, failure })
  return outcome instanceof Promise ? outcome.then(settle) : settle(outcome)
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
