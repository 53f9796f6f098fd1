/** The payload of `tool_end`: one logical tool call is settled (argument retries folded in). */
export interface ToolEndEvent {
  readonly runId: string
  readonly agent: string
  readonly tool: string
  readonly callId: string
  /** The final arguments. */
  readonly args: unknown
  readonly status:
    | 'ok'
    | 'unknown-tool'
    | 'invalid-args'
    | 'guard-rejected'
    | 'execute-failed'
    | 'aborted'
    | 'withheld'
    | 'result-withheld'
    | 'approval-rejected'
    | 'approval-expired'
  readonly outcome: 'no_retry' | 'success' | 'exhausted' | 'llm_gave_up' | 'fabricated_id_on_retry'
  readonly retryCount: number
  /** What `execute` returned (when `status` is `ok`). */
  readonly result: unknown
  /** The error message the model was given (when `status` is not `ok`). */
  readonly error: string | undefined
}
