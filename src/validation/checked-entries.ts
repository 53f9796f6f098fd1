// The building blocks of `reliability-gate/validation` that take an options object, as the subpath
// exports them: each checks its options through one declared contract, then calls the block the
// gate itself calls. The gate imports the blocks directly, so an attempt never pays for these checks.
import { assertMethods } from '../model/options-object.ts'
import { assertString } from '../model/argument-checks.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import type { FeedbackInput } from './feedback/format-feedback.ts'
import { formatFeedback as formatFeedbackUnchecked } from './feedback/format-feedback.ts'
import type { FeedbackTemplateVars } from './feedback/error-template.ts'
import {
  boundJsonValue as boundJsonValueUnchecked,
  type FittedTail,
  fitTail as fitTailUnchecked,
  fitToolTail as fitToolTailUnchecked,
} from './feedback/fit-tail.ts'
import { feedbackTemplateVars as feedbackTemplateVarsUnchecked, type TemplateVarsInput } from './feedback/template-vars.ts'
import { type EchoLimits, truncateEcho as truncateEchoUnchecked } from './feedback/truncate-echo.ts'
import { extractJson as extractJsonUnchecked, type ExtractJsonResult } from './json/extract-json.ts'
import type { JsonLimits } from './json/json-limits.ts'
import { type JsonParseResult, parseJsonSafe as parseJsonSafeUnchecked } from './json/parse-json-safe.ts'
import {
  type RepairJsonOptions,
  type RepairJsonResult,
  type RepairOptions,
  type RepairOutcome,
  repairFinalAnswer as repairFinalAnswerUnchecked,
  repairJson as repairJsonUnchecked,
} from './repair/index.ts'
import type { CompiledSchema } from './schema/compiled-schema.ts'
import { type FinalAnswerResult, type ValidateFinalOptions, validateFinalAnswer as validateFinalAnswerUnchecked } from './validate-final.ts'
import type { ValidationFailure } from './validation-failure.ts'

const LIMIT = option.integer(1)
const CHARS = option.integer(0)

const jsonLimits = (label: string) => optionsContract<JsonLimits>(label, { maxDepth: LIMIT, maxLength: LIMIT })
const EXTRACT_JSON = jsonLimits('extractJson')
const PARSE_JSON_SAFE = jsonLimits('parseJsonSafe')
const REPAIR_JSON_LIMITS = jsonLimits('repairJson limits')
const REPAIR_JSON = optionsContract<RepairJsonOptions>('repairJson', { blockEnded: option.boolean() })
const REPAIR_FINAL_ANSWER = optionsContract<RepairOptions>('repairFinalAnswer', {
  maxDepth: LIMIT,
  maxLength: LIMIT,
  maxRepairLength: LIMIT,
  skip: option.any(),
})
const VALIDATE_FINAL_ANSWER = optionsContract<ValidateFinalOptions>('validateFinalAnswer', {
  maxDepth: LIMIT,
  maxLength: LIMIT,
  repair: option.boolean(),
  maxRepairLength: LIMIT,
  truncated: option.boolean(),
  parsed: option.where('an object { value }', (v) => typeof v === 'object' && v !== null && 'value' in v),
})
const FORMAT_FEEDBACK = optionsContract<FeedbackInput>('formatFeedback', {
  target: option.oneOf('final', 'tool'),
  stage: option.oneOf('json-parse', 'schema-validate', 'tool-args'),
  issues: option.array(),
  parseError: option.string(),
  truncated: option.boolean(),
  toolName: option.string(),
  retryHint: option.string(),
  previousOutput: option.string(),
  maxIssues: LIMIT,
})
const TEMPLATE_VARS = optionsContract<TemplateVarsInput>('feedbackTemplateVars', {
  attempt: option.integer(0),
  previousOutput: option.string(),
  retryHint: option.string(),
  maxFeedbackTokens: LIMIT,
})
const echoLimits = (label: string) => optionsContract<EchoLimits>(label, { maxChars: CHARS, maxTokens: CHARS })
const TRUNCATE_ECHO = echoLimits('truncateEcho')
const FIT_TAIL = echoLimits('fitTail')
const FIT_TOOL_TAIL = echoLimits('fitToolTail')
const BOUND_JSON_VALUE = echoLimits('boundJsonValue')

/** `given` checked by `contract`, its `required` keys present (a `TypeError` naming the first missing). */
function required<T extends object>(contract: { readonly label: string; check(given: T | undefined): T }, given: T, keys: readonly (keyof T & string)[]): T {
  if (given === undefined || given === null) throw new TypeError(`${contract.label}: expected an object with ${keys.join(', ')}, got ${String(given)}`)
  const checked = contract.check(given)
  for (const key of keys) if (checked[key] === undefined) throw new TypeError(`${contract.label}: ${key} is required`)
  return checked
}

/** The first JSON value in a model's text (direct, fenced, or balanced in prose), within `limits`. */
export function extractJson(text: string, limits?: JsonLimits): ExtractJsonResult {
  assertString(text, 'extractJson: text')
  return extractJsonUnchecked(text, EXTRACT_JSON.check(limits))
}

/** `JSON.parse` that refuses forbidden keys, too deep or too long input, as a verdict. */
export function parseJsonSafe(text: string, limits?: JsonLimits): JsonParseResult {
  assertString(text, 'parseJsonSafe: text')
  return parseJsonSafeUnchecked(text, PARSE_JSON_SAFE.check(limits))
}

/** Deterministic repair of a JSON candidate (quotes, commas, Python literals...), within `limits`. */
export function repairJson(candidate: string, limits?: JsonLimits, options?: RepairJsonOptions): RepairJsonResult {
  assertString(candidate, 'repairJson: candidate')
  return repairJsonUnchecked(candidate, REPAIR_JSON_LIMITS.check(limits), REPAIR_JSON.check(options))
}

/** A final answer repaired until it passes `schema`, or why it cannot be. */
export function repairFinalAnswer<T>(text: string, schema: CompiledSchema<T>, options?: RepairOptions): RepairOutcome<T> | Promise<RepairOutcome<T>> {
  assertString(text, 'repairFinalAnswer: text')
  assertMethods(schema, ['validate'], 'repairFinalAnswer: schema', 'a compiled schema (compileSchema(...))')
  return repairFinalAnswerUnchecked(text, schema, REPAIR_FINAL_ANSWER.check(options))
}

/** A final answer's text checked against `schema`: extraction, optional repair, then the schema. */
export function validateFinalAnswer<T>(
  content: string,
  schema: CompiledSchema<T> | undefined,
  options?: ValidateFinalOptions,
): FinalAnswerResult<T> | Promise<FinalAnswerResult<T>> {
  assertString(content, 'validateFinalAnswer: content')
  if (schema !== undefined) assertMethods(schema, ['validate'], 'validateFinalAnswer: schema', 'a compiled schema (compileSchema(...)) or undefined')
  return validateFinalAnswerUnchecked(content, schema, VALIDATE_FINAL_ANSWER.check(options))
}

/** The feedback prose for a failed answer or tool call (one line per issue, path first). */
export function formatFeedback(input: FeedbackInput): string {
  return formatFeedbackUnchecked(required(FORMAT_FEEDBACK, input, ['target', 'stage', 'issues']))
}

/** The variables a feedback template is rendered with. */
export function feedbackTemplateVars(failure: ValidationFailure, input: TemplateVarsInput): FeedbackTemplateVars {
  return feedbackTemplateVarsUnchecked(failure, required(TEMPLATE_VARS, input, ['attempt', 'previousOutput']))
}

/** A previous answer cut to `maxChars` characters (and `maxTokens` tokens) with the truncation marker. */
export function truncateEcho(text: string, limits: EchoLimits): string {
  return truncateEchoUnchecked(text, required(TRUNCATE_ECHO, limits, ['maxChars']))
}

/** Feedback and the echoed answer, fitted together within `limits`. */
export function fitTail(feedback: string, echo: string, limits: EchoLimits): FittedTail<string> {
  return fitTailUnchecked(feedback, echo, required(FIT_TAIL, limits, ['maxChars']))
}

/** Feedback and the echoed tool arguments, fitted together within `limits`. */
export function fitToolTail(feedback: string, args: unknown, limits: EchoLimits): FittedTail<unknown> {
  return fitToolTailUnchecked(feedback, args, required(FIT_TOOL_TAIL, limits, ['maxChars']))
}

/** A JSON value whose strings and size are bounded by `limits`, for echoing to the model. */
export function boundJsonValue(value: unknown, limits: EchoLimits): unknown {
  return boundJsonValueUnchecked(value, required(BOUND_JSON_VALUE, limits, ['maxChars']))
}
