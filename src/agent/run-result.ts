import type { AttemptRecord } from '../gate/attempt-record.ts'
import type { ModelResponse } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'

/** Everything one agent run produced. */
export interface RunResult<T> {
  /** The accepted answer's text. */
  readonly text: string
  /** The validated value (the text itself when no output schema is set). */
  readonly value: T
  readonly response: ModelResponse
  /** Every attempt's log, oldest first. */
  readonly attempts: readonly AttemptRecord[]
  readonly usage: Usage
  readonly costUsd: number
  /** Provider that produced the accepted answer. */
  readonly provider: string
  readonly fromFallback: boolean
  readonly warnings: ValidationFailure | undefined
}
