import type { Message } from '../../model/message.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { FunctionCall } from '../function-call.ts'
import type { SettledToolCall } from '../settled-tool-call.ts'
import type { ApprovalOutcome, PendingApproval } from './approval-types.ts'

/** Where a paused run stood: what a resumed run goes on from. */
export interface PausedRunState {
  readonly user: Message
  /** The model turn whose tool calls were being settled. */
  readonly turn: number
  /** The run's accepted tool turns before that one. */
  readonly turns: readonly Message[]
  readonly calls: readonly FunctionCall[]
  /** The answer whose tool calls were being settled. */
  readonly response: ModelResponse
  /** Its calls settled before the paused one, in order. */
  readonly settled: readonly SettledToolCall[]
  /** The stored conversation's version the run was computed on: a resume commits on it, whichever session resumes (absent in an in-memory session's pause). */
  readonly basedOn?: number
}

/**
 * A tool call needs an approval the run cannot wait for (no engine): thrown from the call, given its
 * turn's settled calls (`settleToolCalls`) and the run's state (`AgentRun`) on the way up, and
 * parked in the session store by the session, which rejects with `ApprovalPendingError`.
 */
export class RunPause extends Error {
  override readonly name = 'RunPause'
  readonly pending: PendingApproval
  settled: readonly SettledToolCall[] = []
  state: PausePoint | undefined
  /**
   * Reports the run's end once the session has parked the pause (`failure`: why it could not), so
   * `agent_run_end` says what the caller received; set by the run when someone listens.
   */
  ended: ((failure?: unknown) => void) | undefined

  constructor(pending: PendingApproval) {
    super(`run ${pending.runId} paused for approval ${pending.approvalId}`)
    this.pending = pending
  }
}

/** The decision a resumed run carries for its paused call. */
export interface ResumedApproval {
  readonly approvalId: string
  readonly outcome: ApprovalOutcome
  readonly reason: string | undefined
}

/** What a run resumed from a pause starts with (`AgentRunOptions.resume`). */
export interface RunResume {
  readonly state: PausedRunState
  /** The paused call, with the arguments it paused on. */
  readonly call: { readonly id: string; readonly name: string; readonly args: unknown }
  readonly approval: ResumedApproval
}

/** Where the run stood when a tool call paused it: its user message (as the input guards left it), the turn, its accepted turns and calls, the answer being settled. */
export type PausePoint = Omit<PausedRunState, 'settled' | 'basedOn'>

/** `error`, given where the run stood (`at`) when it is a {@link RunPause}. */
export function pausedAt(error: unknown, at: PausePoint): unknown {
  if (error instanceof RunPause) error.state ??= at
  return error
}
