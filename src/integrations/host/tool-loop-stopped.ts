import { runFailure } from '../../agent/run-events.ts'
import type { Spent } from '../../agent/run-ledger.ts'
import type { EventHub } from '../../events/event-hub.ts'
import { isReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import { FailFastKinds } from '../../model/fail-fast-kind.ts'
import { messageOf } from '../../model/message-of.ts'

/** The host call a tool-argument loop belongs to: its events, run id, signal and deadline, and what it spent. */
export interface ToolLoopCall {
  readonly events: EventHub
  readonly runId: string
  /** The host's name in the `fail_fast` event (`ai-sdk`, `langchain`, or the middleware's `name`). */
  readonly agent: string
  /** The signal the loop waited under: the caller's, and the call's deadline when `runTimeoutMs` is set. */
  readonly signal: AbortSignal | undefined
  /** True once the call's own deadline fired. */
  readonly expired: boolean
  readonly spent: Spent
}

/**
 * What a host's tool-argument loop throws when `error` ended it: a guard or an async schema cut short
 * by the call's signal is the typed failure of the call (`run-timeout` when its deadline fired, else
 * `aborted`), carrying every attempt the call spent, with `fail_fast` emitted first, as an Agent run's;
 * any other error is returned unchanged.
 */
export function toolLoopStopped(error: unknown, call: ToolLoopCall): unknown {
  if (isReliabilityFailFastError(error) || call.signal?.aborted !== true) return error
  const late = call.expired
  const reason = late
    ? 'the run did not finish within runTimeoutMs (it ran out while the arguments of a tool call were checked)'
    : `the run was aborted while the arguments of a tool call were checked: ${messageOf(error)}`
  const who = { runId: call.runId, tags: {}, agent: call.agent }
  return runFailure(call.events, who, call.spent, { kind: late ? FailFastKinds.RunTimeout : FailFastKinds.Aborted, reason, phase: 'post-decide' })
}
