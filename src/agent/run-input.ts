/** Input of one agent run: the user's message, as a string or an object. */
export type RunInput = string | { readonly message: string }

/** Options of one agent run. */
export interface RunOptions {
  /** Aborts the run: the gate settles at once with kind `aborted`; the history is left unchanged. */
  readonly signal?: AbortSignal
  /** The run's id on every event, the result and the error. @default a new unique id */
  readonly runId?: string
  /** The caller's facts about this run (tenant, request id, ...), handed to middleware as `ctx.metadata`. */
  readonly metadata?: Readonly<Record<string, unknown>>
}

/** Reads the user message out of a run input, rejecting anything else with a clear error. */
export function messageOf(input: RunInput): string {
  if (typeof input === 'string') return input
  if (typeof input === 'object' && input !== null && typeof input.message === 'string') return input.message
  throw new TypeError('agent.run: input must be a string or { message: string }')
}
