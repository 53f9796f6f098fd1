import { hasBrand } from '../model/brand.ts'
import { typeName } from '../model/describe-value.ts'
import type { ValidationIssue } from './issue.ts'
import { issueSignature } from './issue-signature.ts'
import { resumeStackTraces, suspendStackTraces } from '../model/stack-traces.ts'

/** Where validation failed: extracting JSON, checking the output schema, or checking tool-call arguments. */
export type ValidationStage = 'json-parse' | 'schema-validate' | 'tool-args'

const BRAND = Symbol.for('reliability-gate.ValidationFailure')

const STAGES: readonly unknown[] = ['json-parse', 'schema-validate', 'tool-args']

/** What a misused `new ValidationFailure(...)` was given, for its error: the init's type, or its stage and message types. */
function initShown(init: unknown): string {
  if (typeof init !== 'object' || init === null) return typeName(init)
  const { stage, message } = init as { stage?: unknown; message?: unknown }
  return `stage ${typeof stage === 'string' ? JSON.stringify(stage.slice(0, 40)) : typeName(stage)} and message ${typeName(message)}`
}

/**
 * A validation verdict carried as data: the model's output was rejected. Never thrown by the gate;
 * rules read it from `scope.validationError`. It is an `Error` (agentfootprint's sentinel error
 * class), so it can be thrown, logged and matched like one where that is convenient; check it with
 * {@link isValidationFailure}, which also works across realms and duplicate package copies. Being a
 * verdict rather than a crash, it carries no stack trace. Its `message` is an own enumerable
 * property, so `JSON.stringify(failure)` and `{ ...failure }` keep it.
 *
 * @example
 * if (isValidationFailure(error)) console.log(error.stage, error.issues)
 */
export class ValidationFailure extends Error {
  override readonly name = 'ValidationFailure'
  readonly stage: ValidationStage
  /** Path of the first issue, when there is one. */
  readonly path: string | undefined
  readonly issues: readonly ValidationIssue[]
  readonly rawOutput: string | undefined
  /** For `json-parse`: the parser's own message, for feedback prose. */
  readonly parseError: string | undefined
  /** For `schema-validate`: the extracted JSON value the schema rejected (partial mode returns it). */
  readonly parsed: unknown
  /** The provider cut the answer at its output token limit: it was refused as incomplete. */
  readonly truncated: boolean
  /**
   * A digest of the full issue set (every issue, not just those the one-line `message` names):
   * equal for failures that report exactly the same problems. Stuck-loop detection compares it.
   */
  readonly signature: string
  readonly [BRAND] = true

  /**
   * @param init.message One-line summary, bounded (see `summarizeFailure`); `signature` tells
   * failures apart beyond what it names.
   */
  constructor(init: {
    stage: ValidationStage
    message: string
    issues?: readonly ValidationIssue[]
    rawOutput?: string | undefined
    path?: string | undefined
    parseError?: string | undefined
    parsed?: unknown
    truncated?: boolean
  }) {
    if (typeof init !== 'object' || init === null || !STAGES.includes(init.stage) || typeof init.message !== 'string') {
      throw new TypeError(`ValidationFailure: expected { stage: ${STAGES.map((st) => `'${st}'`).join(' | ')}, message: string, ... }, got ${initShown(init)}`)
    }
    // A verdict, not a crash: no stack is captured (that would cost microseconds on every failed attempt).
    const saved = suspendStackTraces()
    try {
      super()
    } finally {
      resumeStackTraces(saved)
    }
    // An own, enumerable `message` (the one Error makes is not: JSON.stringify and spreads of a logged
    // failure would lose it), assigned rather than redefined so the object keeps a fast shape.
    this.message = init.message
    this.stage = init.stage
    // A frozen copy: rules, listeners and the attempt log share it, and none may edit what another reads.
    this.issues = Object.freeze(init.issues === undefined ? [] : [...init.issues])
    this.rawOutput = init.rawOutput
    this.path = init.path ?? this.issues[0]?.path
    this.parseError = init.parseError
    this.parsed = init.parsed
    this.truncated = init.truncated === true
    this.signature = issueSignature(init.stage, this.issues, init.parseError ?? (this.issues.length === 0 ? init.message : undefined))
  }
}

/** Brand check for {@link ValidationFailure}. */
export function isValidationFailure(value: unknown): value is ValidationFailure {
  return hasBrand(value, BRAND)
}
