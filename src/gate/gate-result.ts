import type { ModelResponse } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { AttemptRecord } from './attempt-record.ts'

/** What a successful `gate.run` returns. */
export interface GateResult<T> {
  /** The run's id, as on its events. */
  readonly runId: string
  /** The accepted response. */
  readonly response: ModelResponse
  /** The validated value (the content text when no output schema is set; `undefined` on a tool-call turn). */
  readonly value: T
  /** Every attempt's log, oldest first. */
  readonly attempts: readonly AttemptRecord[]
  readonly lastAttempt: AttemptRecord
  /** Usage over every attempt, failed ones included. */
  readonly usage: Usage
  readonly costUsd: number
  /** Provider that produced the accepted response (`fallback` for the fallback). */
  readonly provider: string
  /**
   * Index in the gate's `providers` of the provider the run ended on: the one that produced the
   * accepted response (the one it was on when the fallback answered). An agent asks that provider
   * again to fix the arguments of a tool call it made.
   */
  readonly providerIdx: number
  /** True when the accepted answer came from the configured fallback. */
  readonly fromFallback: boolean
  /** Validation problems of an answer a rule accepted anyway (partial mode). */
  readonly warnings: ValidationFailure | undefined
}
