import { summarizeFailure } from './feedback/summarize-failure.ts'
import type { ValidationIssue } from './issue.ts'
import { extractJson, type JsonSource } from './json/extract-json.ts'
import { endsMidBlock } from './json/ends-mid-block.ts'
import { findJsonSegments } from './json/json-segments.ts'
import { DEFAULT_MAX_LENGTH, type JsonLimits } from './json/json-limits.ts'
import { repairFinalAnswer, type RepairOutcome } from './repair/repair-final-answer.ts'
import { INCOMPLETE } from './repair/repair-json.ts'
import { scanCandidate } from './repair/scan-candidate.ts'
import type { CompiledSchema, SchemaResult } from './schema/compiled-schema.ts'
import { makeIssue } from './schema/make-issue.ts'
import { ValidationFailure } from './validation-failure.ts'

/** Options of {@link validateFinalAnswer}. */
export interface ValidateFinalOptions extends JsonLimits {
  /**
   * Try the deterministic repair stage before a parse failure counts: a repaired value is accepted
   * only if it passes the schema, otherwise the original failure stands.
   * @default false
   */
  readonly repair?: boolean
  /** Longest answer the repair stage works on, in characters. @default 100_000 */
  readonly maxRepairLength?: number
  /**
   * The provider cut the answer at its output token limit (stop reason `max_tokens`). Such an answer
   * is never accepted as complete, even when its JSON parses and passes the schema (the value may
   * have been cut short, or the answer may have gone on): with a schema the verdict is a `json-parse`
   * failure with `truncated: true`, whose feedback says the answer was cut, and no repair is tried
   * (closing the brackets of a cut answer would accept cut data).
   * @default false
   */
  readonly truncated?: boolean
  /**
   * The whole answer, already parsed with the default limits and found free of forbidden keys (the
   * gate's fast path): extraction is skipped and this value goes to the schema as a `direct` one.
   */
  readonly parsed?: { readonly value: unknown }
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

/** Where a checked value came from in the answer: how it was extracted, and how many JSON values it joins. */
interface ValueOrigin {
  readonly source: JsonSource
  readonly count: number
}

// The gate's fast path: the whole answer parsed as one value.
const WHOLE_ANSWER: ValueOrigin = { source: 'direct', count: 1 }

// Said of every answer cut by the provider's output token limit.
const CUT_BY_TOKEN_LIMIT = "the answer was cut off by the output token limit (stop reason 'max_tokens') before it was complete"

/**
 * Validates a model's final answer: without a schema the text itself is the value; with one, the
 * JSON is extracted (every value of the answer, see `extractJson`) and then checked; with
 * `repair`, an answer whose JSON does not parse goes through the repair stage (an answer that
 * parses has nothing to repair: the schema's verdict on it is final). An answer cut by the token limit
 * (`truncated`) always fails. Synchronous unless the schema answers with a promise, since this
 * runs on every response.
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
  const parsed = options?.parsed
  if (parsed !== undefined && options?.truncated !== true) {
    const verdict = schema.validate(parsed.value)
    const settle = (settled: SchemaResult<T>): FinalAnswerResult<T> => toFinal(settled, content, parsed.value, WHOLE_ANSWER)
    return verdict instanceof Promise ? verdict.then(settle) : settle(verdict)
  }
  const extracted = extractJson(content, options)
  if (options?.truncated === true) return { ok: false, failure: cutFailure(content, extracted.ok ? undefined : extracted.message) }
  if (!extracted.ok) {
    const issues = extracted.issue === undefined ? [] : [extracted.issue]
    // Whatever the stop reason, an answer whose JSON stops before it is complete is said to be cut, and never repaired.
    // One refused for its length is not scanned for that: a 50 MB answer would hold the event loop for a third of a second.
    const cut = extracted.issue === undefined && content.length <= (options?.maxLength ?? DEFAULT_MAX_LENGTH) ? endsCut(content) : undefined
    const parseError = cut === undefined ? extracted.message : `${cut}; ${extracted.message}`
    const failure = new ValidationFailure({
      stage: 'json-parse',
      message: summarizeFailure('json-parse', [], parseError),
      issues,
      rawOutput: content,
      parseError,
    })
    // A refused key is a security verdict, not a syntax slip: never repaired.
    if (options?.repair !== true || extracted.issue !== undefined || cut !== undefined) return { ok: false, failure }
    return afterRepair(repairFinalAnswer(content, schema, repairOptions(options)), failure)
  }
  const openBlock = extracted.source === 'direct' ? undefined : endsMidBlock(content)
  if (openBlock !== undefined) return { ok: false, failure: cutOff(content, openBlock) }
  // Every value of the answer parsed: the repair stage would rebuild this same value, so the schema's verdict is final.
  const verdict = schema.validate(extracted.value)
  const settle = (settled: SchemaResult<T>): FinalAnswerResult<T> => toFinal(settled, content, extracted.value, extracted)
  return verdict instanceof Promise ? verdict.then(settle) : settle(verdict)
}

/**
 * Why the answer was cut, if it was: it stops inside a tagged block (see `endsMidBlock`), or its last
 * JSON value runs to its end and stops before it is complete (see `scanCandidate`).
 */
function endsCut(content: string): string | undefined {
  const openBlock = endsMidBlock(content)
  if (openBlock !== undefined) return blockCutMessage(openBlock)
  const last = findJsonSegments(content).at(-1)
  if (last === undefined || last.start + last.text.trimEnd().length < content.trimEnd().length) return undefined
  return scanCandidate(last.text.trim()).kind === 'incomplete' ? INCOMPLETE : undefined
}

function blockCutMessage(tag: string): string {
  return `the answer stops inside a <${tag}> block (opened and never closed, or a tag half written): it was probably cut off; send the whole answer again, every block closed`
}

function cutOff(content: string, tag: string): ValidationFailure {
  const parseError = blockCutMessage(tag)
  return new ValidationFailure({ stage: 'json-parse', message: summarizeFailure('json-parse', [], parseError), rawOutput: content, parseError })
}

function repairOptions(options: ValidateFinalOptions) {
  return { maxDepth: options.maxDepth, maxLength: options.maxLength, maxRepairLength: options.maxRepairLength }
}

function cutFailure(content: string, parseError: string | undefined): ValidationFailure {
  const detail = parseError === undefined ? CUT_BY_TOKEN_LIMIT : `${CUT_BY_TOKEN_LIMIT}; ${parseError}`
  return new ValidationFailure({
    stage: 'json-parse',
    message: summarizeFailure('json-parse', [], detail),
    rawOutput: content,
    parseError: detail,
    truncated: true,
  })
}

function afterRepair<T>(
  outcome: RepairOutcome<T> | Promise<RepairOutcome<T>>,
  failure: ValidationFailure,
): FinalAnswerResult<T> | Promise<FinalAnswerResult<T>> {
  const settle = (o: RepairOutcome<T>): FinalAnswerResult<T> => {
    if (o.ok) return { ok: true, value: o.value, repairs: o.repairs }
    if (o.reason === undefined) return { ok: false, failure }
    // Said first: the model learns why its answer was not taken as it reads.
    const parseError = `${o.reason}; ${failure.parseError ?? failure.message}`
    return {
      ok: false,
      failure: new ValidationFailure({
        stage: 'json-parse',
        message: summarizeFailure('json-parse', [], parseError),
        rawOutput: failure.rawOutput,
        parseError,
      }),
    }
  }
  return outcome instanceof Promise ? outcome.then(settle) : settle(outcome)
}

function toFinal<T>(verdict: SchemaResult<T>, content: string, parsed: unknown, origin: ValueOrigin): FinalAnswerResult<T> {
  if (verdict.ok) return { ok: true, value: verdict.value, extractedFrom: origin.source }
  const issues = origin.source === 'joined' ? joinedIssues(verdict.issues, origin.count) : verdict.issues
  const failure = new ValidationFailure({
    stage: 'schema-validate',
    message: summarizeFailure('schema-validate', issues),
    issues,
    rawOutput: content,
    parsed,
  })
  return { ok: false, failure }
}

/**
 * Several values were checked as one list: when the schema wants something else at the root, say
 * so in the model's terms (it wrote separate values, not a list).
 */
function joinedIssues(issues: readonly ValidationIssue[], count: number): readonly ValidationIssue[] {
  const root = issues.find((i) => i.path === '' && i.code === 'invalid_type')
  if (root === undefined) return issues
  const wanted = root.expected === undefined ? 'one JSON value' : `one JSON ${root.expected}`
  // Never "return exactly one": a model asked for that drops values (calls) instead of combining them.
  const message = `the answer holds ${count} separate JSON values written one after another, and it must be ${wanted}: put everything the answer needs into that one value`
  return [makeIssue({ segments: [], code: 'other', message })]
}
