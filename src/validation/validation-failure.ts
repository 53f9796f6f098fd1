import { hasBrand } from '../model/brand.ts'
import type { ValidationIssue } from './issue.ts'

/** Where validation failed: extracting JSON, checking the output schema, or checking tool-call arguments. */
export type ValidationStage = 'json-parse' | 'schema-validate' | 'tool-args'

const BRAND = Symbol.for('reliability-gate.ValidationFailure')

/**
 * A validation verdict carried as data: the model's output was rejected. Never thrown by the gate;
 * rules read it from `scope.validationError`.
 */
export class ValidationFailure {
  readonly name = 'ValidationFailure'
  readonly stage: ValidationStage
  /** One-line summary, stable for identical failures (stuck-loop detection compares it). */
  readonly message: string
  /** Path of the first issue, when there is one. */
  readonly path: string | undefined
  readonly issues: readonly ValidationIssue[]
  readonly rawOutput: string | undefined
  /** For `json-parse`: the parser's own message, for feedback prose. */
  readonly parseError: string | undefined
  /** For `schema-validate`: the extracted JSON value the schema rejected (partial mode returns it). */
  readonly parsed: unknown
  readonly [BRAND] = true

  constructor(init: {
    stage: ValidationStage
    message: string
    issues?: readonly ValidationIssue[]
    rawOutput?: string | undefined
    path?: string | undefined
    parseError?: string | undefined
    parsed?: unknown
  }) {
    this.stage = init.stage
    this.message = init.message
    this.issues = init.issues ?? []
    this.rawOutput = init.rawOutput
    this.path = init.path ?? this.issues[0]?.path
    this.parseError = init.parseError
    this.parsed = init.parsed
  }
}

/** Brand check for {@link ValidationFailure}. */
export function isValidationFailure(value: unknown): value is ValidationFailure {
  return hasBrand(value, BRAND)
}
