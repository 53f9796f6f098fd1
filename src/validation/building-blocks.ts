// The `reliability-gate/validation` subpath: the validation layer's building blocks, usable without
// the gate (JSON extraction and repair, schema adapters, feedback prose and templates, truncation,
// incremental validation of a stream).

export { compileSchema } from './schema/compile-schema.ts'
export type { CompiledSchema, SchemaResult, SchemaVendor } from './schema/compiled-schema.ts'
export type { InferSchema, JsonSchemaObject, OutputSchema, ParseSchema, TypeBoxSchema } from './schema/output-schema.ts'
export type { StandardSchemaV1 } from './schema/standard-schema.ts'
export type { IssueCode, ValidationIssue } from './issue.ts'
export { isValidationFailure, ValidationFailure } from './validation-failure.ts'
export type { ValidationStage } from './validation-failure.ts'

export { extractJson } from './json/extract-json.ts'
export type { ExtractJsonResult, JsonSource } from './json/extract-json.ts'
export { parseJsonSafe } from './json/parse-json-safe.ts'
export type { JsonParseResult } from './json/parse-json-safe.ts'
export { repairFinalAnswer, repairJson } from './repair/index.ts'
export type { RepairJsonResult, RepairKind, RepairOutcome } from './repair/index.ts'
export { validateFinalAnswer } from './validate-final.ts'
export type { FinalAnswerResult, ValidateFinalOptions } from './validate-final.ts'
export { validateToolArgs } from './tool-args.ts'
export type { ToolArgsResult } from './tool-args.ts'

export { formatFeedback } from './feedback/format-feedback.ts'
export type { FeedbackInput } from './feedback/format-feedback.ts'
export { formatIssueLine } from './feedback/format-issue-line.ts'
export { renderErrorTemplate } from './feedback/render-template.ts'
export type { TemplateRender } from './feedback/render-template.ts'
export { feedbackTemplateVars } from './feedback/template-vars.ts'
export type { ErrorTemplate, FeedbackTemplateVars, TemplateError } from './feedback/error-template.ts'
export { TRUNCATION_MARKER, truncateForFeedback } from './feedback/truncate-for-feedback.ts'
export { truncateEcho } from './feedback/truncate-echo.ts'
export type { EchoLimits } from './feedback/truncate-echo.ts'
export { countFeedbackTokens } from './feedback/truncate-to-tokens.ts'

export { IncrementalValidator } from './stream/incremental-validator.ts'
export type { IncrementalState } from './stream/incremental-validator.ts'
export type { StreamViolation } from './stream/stream-violation.ts'
