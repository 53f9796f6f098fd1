/** An issue of a failed validation, as the viewer shows it. */
export interface ViewIssue {
  readonly path: string
  readonly message: string
}

/** A validation failure of an attempt (or of a tool call's arguments). */
export interface ViewFailure {
  readonly stage: string
  readonly message: string
  readonly issues: readonly ViewIssue[]
}

/** A message of an ephemeral tail. */
export interface ViewMessage {
  readonly role: string
  readonly content: string
}

/** One attempt: one provider call and what was decided about it. */
export interface ViewAttempt {
  readonly item: 'attempt'
  readonly turn: number | undefined
  readonly attempt: number
  readonly provider: string
  readonly model: string | undefined
  errorKind: string
  latencyMs: number | undefined
  inputTokens: number
  outputTokens: number
  costUsd: number
  /** The attempt could not be priced (a `cost_unknown` event): `costUsd` leaves it out, it is not free. */
  unpriced: boolean
  rawOutput: string | undefined
  toolCalls: readonly { readonly name: string; readonly args: unknown }[]
  finishReason: string | undefined
  readonly failures: ViewFailure[]
  repairs: readonly string[]
  decision: { readonly decision: string; readonly kind: string; readonly label: string | undefined; readonly matched: boolean } | undefined
  /** The tail the next attempt was sent with; ephemeral, never persisted. */
  tail: readonly ViewMessage[] | undefined
  feedback: string | undefined
  failover: string | undefined
  /** Set when the attempt is a tool call's argument retry: which tool, which retry, and whether the arguments it gave passed. */
  toolRetry: { readonly tool: string; readonly retry: number; verdict: 'pending' | 'valid' | 'invalid' } | undefined
  /** The tool whose call this attempt made was rejected (its arguments failed; the issues are this attempt's `failures`). */
  argsRejected: string | undefined
  /** The ephemeral tail this attempt was sent with (a tool-argument retry's feedback); never persisted. */
  sent: readonly ViewMessage[] | undefined
  /** Fields of the trace that had the wrong type, each read as absent. */
  readonly invalid: string[]
}

/** One logical tool call of an agent run. */
export interface ViewTool {
  readonly item: 'tool'
  readonly turn: number | undefined
  readonly tool: string
  readonly callId: string
  args: unknown
  status: string | undefined
  outcome: string | undefined
  retryCount: number
  error: string | undefined
  /** Every argument failure of the call, oldest first (each with the arguments it rejected in `rejected`). */
  readonly failures: ViewFailure[]
  /** The arguments the model gave and the tool rejected, each with its own issues; `args` is the call that settled. */
  readonly rejected: ViewRejectedCall[]
  /** Fields of the trace that had the wrong type, each read as absent. */
  readonly invalid: string[]
}

/** One rejected set of arguments of a tool call, drawn as rejected with its own issues. */
export interface ViewRejectedCall {
  readonly args: unknown
  readonly failure: ViewFailure
}

/** Something the run reported that is neither an attempt nor a tool call (fallbacks, budgets, drift...). */
export interface ViewNote {
  readonly item: 'note'
  readonly type: string
  readonly text: string
}

/** One run (an agent run, or a plain gate run) as a timeline. */
export interface ViewRun {
  readonly runId: string
  kind: 'agent' | 'gate'
  name: string | undefined
  readonly startedAt: number
  endedAt: number | undefined
  outcome: 'ok' | 'fail-fast' | 'unfinished'
  /** The fail-fast kind, when the run failed. */
  failKind: string | undefined
  reason: string | undefined
  metadata: Readonly<Record<string, unknown>> | undefined
  inputTokens: number
  outputTokens: number
  costUsd: number
  /** Attempts of the run that could not be priced: its cost is `costUsd` plus these. */
  unpricedAttempts: number
  readonly models: string[]
  /** Every kind seen in the run: error kinds of attempts, rule kinds, fail-fast kinds. */
  readonly kinds: string[]
  readonly timeline: (ViewAttempt | ViewTool | ViewNote)[]
}
