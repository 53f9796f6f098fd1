export type { ApprovalDecision } from '../../durable/approval-decision.ts'

/** How a paused tool call's approval ended. */
export type ApprovalOutcome = 'approved' | 'rejected' | 'expired'

/** What `execute`'s `needsApproval` function is told besides the arguments. */
export interface ApprovalContext {
  readonly runId: string
  readonly callId: string
  readonly agent: string
}

/**
 * A tool's `needsApproval`: `true` (every call), or a function of the validated arguments deciding
 * per call (a refund above a threshold). A function that throws or rejects asks for approval: a
 * check that cannot answer does not let a call through.
 */
export type NeedsApproval<I = unknown> = boolean | ((args: I, ctx: ApprovalContext) => boolean | Promise<boolean>)

/** A tool call waiting for a human: what `ApprovalPendingError` carries and the store holds. */
export interface PendingApproval {
  readonly approvalId: string
  readonly runId: string
  /** The stored conversation's id, or `undefined` for an in-memory session. */
  readonly sessionId: string | undefined
  readonly agent: string
  readonly tool: string
  readonly callId: string
  /** The model turn whose call this is. */
  readonly turn: number
  /** SHA-256 of the canonical JSON of the tool's name and `args` (see `argsDigest`). */
  readonly argsDigest: string
  /** The validated arguments the tool runs on once approved. */
  readonly args: unknown
  /** When the approval was asked for, and when it expires (ms since the epoch). */
  readonly requestedAt: number
  readonly expiresAt: number
}
