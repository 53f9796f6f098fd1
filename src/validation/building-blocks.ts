// The `reliability-gate/validation` subpath: the validation layer's building blocks, usable without
// the gate (JSON extraction and repair, schema adapters, feedback prose and templates, truncation,
// incremental validation of a stream).

export { compileSchema, isCompiledSchema } from './schema/compile-schema.ts'
// The blocks that take an options object, each checking it at this entry (the gate calls them unchecked).
export {
  boundJsonValue,
  extractJson,
  feedbackTemplateVars,
  fitTail,
  fitToolTail,
  formatFeedback,
  parseJsonSafe,
  repairFinalAnswer,
  repairJson,
  truncateEcho,
  validateFinalAnswer,
} from './checked-entries.ts'
export type { CompileOptions } from './schema/compile-schema.ts'
export type { FormatMode } from './schema/prepare-schema.ts'
export type { SchemaRegistry } from './schema/typebox-adapter.ts'
export { MAX_COLLECTED_ERRORS } from './schema/typebox-adapter.ts'
export { PATTERN_BUDGET } from './schema/regex/pattern-budget.ts'
export { issueSignature } from './issue-signature.ts'
export type { CompiledSchema, SchemaResult, SchemaVendor } from './schema/compiled-schema.ts'
export type { InferSchema, JsonSchemaKeywords, JsonSchemaObject, OutputSchema, ParseSchema, TypeBoxSchema } from './schema/output-schema.ts'
export type { StandardIssue, StandardPathSegment, StandardProps, StandardResult, StandardSchemaV1, StandardTypes } from './schema/standard-schema.ts'
export type { IssueCode, ValidationIssue } from './issue.ts'
export { isValidationFailure, ValidationFailure } from './validation-failure.ts'
export type { ValidationStage } from './validation-failure.ts'

export type { ExtractJsonResult, JsonSource } from './json/extract-json.ts'
export { checkForbiddenKeys, isForbiddenKey, isPrototypeKey } from './json/forbidden-keys.ts'
export type { ForbiddenKeyName } from './json/forbidden-keys.ts'
export type { JsonParseResult, JsonRefusal } from './json/parse-json-safe.ts'
export type { JsonLimits } from './json/json-limits.ts'
export type { RepairJsonOptions } from './repair/index.ts'
export { JSON_SCHEMA_KEYWORD_LIST } from './schema/schema-keywords.ts'
export type { JsonSchemaKeyword } from './schema/schema-keywords.ts'
export type { RepairJsonResult, RepairKind, RepairOptions, RepairOutcome } from './repair/index.ts'
export type { FinalAnswerResult, ValidateFinalOptions } from './validate-final.ts'
export { validateToolArgs } from './tool-args.ts'
export type { ToolArgsResult } from './tool-args.ts'

export type { FeedbackInput } from './feedback/format-feedback.ts'
export { formatIssueLine } from './feedback/format-issue-line.ts'
export { issueText } from './feedback/describe-issue.ts'
export { DEFAULT_MAX_FEEDBACK_CHARS, DEFAULT_MAX_ISSUES, MAX_PROBLEM, MAX_QUOTED_PATH, oneLine } from './feedback/feedback-limits.ts'
export type { FittedTail } from './feedback/fit-tail.ts'
export { renderErrorTemplate } from './feedback/render-template.ts'
export type { TemplateRender } from './feedback/render-template.ts'
export type { TemplateVarsInput } from './feedback/template-vars.ts'
export type { ErrorTemplate, FeedbackTemplateVars, TemplateError } from './feedback/error-template.ts'
export { TRUNCATION_MARKER, truncateForFeedback } from './feedback/truncate-for-feedback.ts'
export type { EchoLimits } from './feedback/truncate-echo.ts'
export { countFeedbackTokens } from './feedback/truncate-to-tokens.ts'

export { compileProviderSchema, PROVIDER_TARGETS } from './provider-schema/index.ts'
export type {
  CompiledProviderSchema,
  DroppedConstraint,
  Narrowing,
  ProviderSchemaResult,
  ProviderTarget,
  UncompilableSchema,
} from './provider-schema/index.ts'

export { IncrementalValidator } from './stream/incremental-validator.ts'
export type { IncrementalState } from './stream/incremental-validator.ts'
export type { StreamViolation } from './stream/stream-violation.ts'
// The shipped pattern guards: pure detectors and one tool-result verdict (no model, no I/O).
export { findInstructions, findPii, findSecrets, luhnValid, normalizeForScan, redactMatches, screenToolResult } from './guards/index.ts'
export type { PatternKind, PatternMatch, PiiKind, ScreenOptions, ScreenVerdict } from './guards/index.ts'
// Content guards: one verdict contract on every surface, and the shipped guards as ready-made ones.
export { contentGuard, GUARD_SURFACES, instructionGuard, piiGuard, secretsGuard, streamWindow } from './guards/index.ts'
export type {
  ContentCheck,
  ContentGuard,
  ContentGuardOptions,
  ContentVerdict,
  GuardInput,
  GuardRecord,
  GuardSurface,
  PiiGuardOptions,
  SecretsGuardOptions,
  ShippedGuardOptions,
  StreamRelease,
  StreamWindow,
  StreamWindowOptions,
  ToolTrust,
} from './guards/index.ts'
