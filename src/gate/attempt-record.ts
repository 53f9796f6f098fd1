import type { ErrorKind } from '../model/error-kind.ts'
import type { Usage } from '../model/usage.ts'
import type { Decision } from '../rules/rule.ts'
import type { ValidationIssue } from '../validation/issue.ts'
import type { ValidationStage } from '../validation/validation-failure.ts'

/**
 * How an attempt ended, in pyconveyor's attempt-log vocabulary (`AttemptLog.status`), kept snake
 * case so pyconveyor's log readers work unchanged (`attempt.status === 'schema_error'`). It is the
 * one snake-case field of a record: the library's own kind of the same failure is `errorKind`
 * (kebab case, `schema-fail`), and fail-fast kinds are kebab case too.
 */
export type AttemptStatus =
  | 'success'
  | 'parse_error'
  | 'schema_error'
  | 'truncated'
  | 'refusal'
  | 'malformed_response'
  | 'timeout'
  | 'rate_limit'
  | 'http_error'
  | 'network'
  | 'circuit_open'
  | 'aborted'
  | 'budget_exceeded'
  | 'error'

/** The log of one attempt: kept on the result and on a thrown ReliabilityFailFastError alike. */
export interface AttemptRecord {
  /** 1-indexed. */
  readonly attempt: number
  readonly provider: string
  readonly model: string | undefined
  readonly status: AttemptStatus
  readonly errorKind: ErrorKind
  /** The model's raw output (absent when the provider call failed). */
  readonly rawOutput: string | undefined
  readonly validationStage: ValidationStage | undefined
  readonly issues: readonly ValidationIssue[]
  /**
   * The error's category: `parse` or `schema` for a validation failure (the feedback template's
   * `error_type`), the thrown error's name (`ProviderError`, `TimeoutError`, ...) for a failed call,
   * `undefined` for a success.
   */
  readonly errorType: string | undefined
  /**
   * One line per issue as pyconveyor's attempt log writes it, `loc_str: msg` with the feedback
   * template's `loc_str` and `msg` (`amount: required field is missing — provide a value`), or the
   * parse / provider error message.
   */
  readonly errors: readonly string[]
  /** The provider error of this attempt, if any. */
  readonly error: unknown
  readonly decision: Decision
  /** The `kind` of the rule that decided, or the error kind when no rule matched. */
  readonly ruleKind: string
  readonly ruleLabel: string | undefined
  /** The feedback sent to the model for the next attempt, when this attempt was retried with feedback. */
  readonly feedbackSent: string | undefined
  /** The JSON was repaired deterministically before it passed the schema. */
  readonly repaired: boolean
  /** Provider latency in ms. */
  readonly latencyMs: number
  /** Time since the run started, at the end of this attempt, in ms. */
  readonly elapsedMs: number
  /** Token usage; `usage.estimated` when the provider's counts were missing or unusable. */
  readonly usage: Usage
  readonly costUsd: number
  /** The cost could not be priced (an unknown model, a failing price function): `costUsd` is 0. */
  readonly unpriced: boolean
}
