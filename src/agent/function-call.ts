import type { GateEventMap } from '../events/event-map.ts'

/**
 * How the argument validation of one logical tool call ended (Imperal's vocabulary):
 * `no_retry` valid at once (or not retryable), `success` valid after retries, `redundant` a retry
 * repeated earlier arguments (reported as it happens; the loop goes on), `exhausted` still invalid
 * when the retry budget ran out, `llm_gave_up` the retry reply did not call the tool again,
 * `fabricated_id_on_retry` a guard rejected a retry's arguments.
 */
export type ToolRetryOutcome = GateEventMap['tool_retry_outcome']['outcome']

/** What happened to the call itself. */
export type ToolCallStatus =
  /** `execute` ran and returned (its result sent as text bounded by the feedback budget). */
  | 'ok'
  /** The model named a tool the agent does not have. */
  | 'unknown-tool'
  /** The arguments never passed the tool's schema (retries exhausted, or the model gave up). */
  | 'invalid-args'
  /** A guard rejected the arguments. */
  | 'guard-rejected'
  /** The tool was withheld for this turn (no-progress ladder's forced change): `execute` never ran. */
  | 'withheld'
  /**
   * `execute` threw: the model is told its message, bounded by the feedback budget. (A result
   * `JSON.stringify` cannot write is written safely and the call is `ok`.)
   */
  | 'execute-failed'
  /**
   * `execute` returned, and a content guard withheld the result (instruction-like text, a credential
   * it blocks): the model was shown a notice instead. Not a tool failure and never retried.
   */
  | 'result-withheld'
  /** A human rejected the call (`needsApproval`): `execute` never ran; the model is told the reason. */
  | 'approval-rejected'
  /** The call's approval expired before anyone decided: `execute` never ran. */
  | 'approval-expired'
  /** `execute` was aborted (it threw an `AbortError` / `TimeoutError` while the run went on). */
  | 'aborted'

/** One logical tool call of a run: exactly one entry per call the model made, retries folded in. */
export interface FunctionCall {
  /** Id of the model's original call (the one the persisted history and the tool result use). */
  readonly id: string
  readonly name: string
  /** The final arguments: the accepted ones, or the last ones tried when none was accepted. */
  readonly args: unknown
  readonly status: ToolCallStatus
  /** What `execute` returned (`undefined` unless `status` is `ok`). */
  readonly result: unknown
  /** The error message the model was given (`undefined` when `status` is `ok`). */
  readonly error: string | undefined
  /** Argument retries made for this call (model calls beyond the first). */
  readonly retryCount: number
  /** Retries that repeated earlier arguments (keys sorted); they count against the budget. */
  readonly redundantRetries: number
  readonly outcome: Exclude<ToolRetryOutcome, 'redundant'>
  /** True when the agent answered the model itself and `execute` never ran. */
  readonly intercepted: boolean
  /**
   * Arguments of every attempt, the first one included, oldest first; the last as the `tool-args` content guards left it
   * (redacted, or blocked). A call settled before a run paused for approval keeps only its final arguments in the resumed
   * run's result: rejected arguments are never stored with the pause.
   */
  readonly argsTried: readonly unknown[]
  /**
   * What the content guards did to the result: `redact` (the model saw, and `result` holds, the
   * redacted text) or `withhold` (status `result-withheld`). Absent when they allowed it, or none ran.
   */
  readonly guardVerdict?: { readonly action: 'redact' | 'withhold'; readonly guards: readonly string[]; readonly reason?: string }
}
