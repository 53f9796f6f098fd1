/** A guard's verdict on a tool call's arguments. */
export type GuardVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string }

/** What a guard knows about the call it checks. */
export interface GuardContext {
  /** Name of the tool being called. */
  readonly tool: string
  /** Id of the model's tool call. */
  readonly callId: string
  /** 0 for the model's first attempt at this call, then 1, 2, ... for each argument retry. */
  readonly retry: number
  /** Name of the agent (as in the log line's `ext=`). */
  readonly agent: string
}

/**
 * A check of a tool call's arguments, run before `execute` on the first attempt AND on every retry
 * input (a rejection on a retry ends the call as `fabricated_id_on_retry`). May be async; a guard
 * that throws rejects the call with its message.
 *
 * A guard sees arguments that passed the tool's schema, typed as the tool's input, unless it is
 * marked `checksRawInput` (like {@link idShapeGuard}): it then sees every input, valid or not,
 * before the schema, so a fabricated ID is caught even in otherwise broken arguments.
 *
 * @example
 * const noRefundsAbove: ToolGuard<{ amount: number }> = (args) => args.amount <= 500 ? { ok: true } : { ok: false, reason: 'refunds above $500 need a human' }
 */
export type ToolGuard<I = unknown> = ((args: I, ctx: GuardContext) => GuardVerdict | Promise<GuardVerdict>) & {
  readonly checksRawInput?: boolean
}
