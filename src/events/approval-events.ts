/** The tool call an approval event is about, and the approval that binds it: what both approval events carry. */
export interface ApprovalCall {
  readonly runId: string
  readonly agent: string
  readonly tool: string
  readonly callId: string
  /** The approval's id: what `session.approve(approvalId, ...)` and the engines' senders name. */
  readonly approvalId: string
  /** SHA-256 (hex) of the canonical JSON of the tool's name and the exact arguments the approval binds. */
  readonly argsDigest: string
}

/**
 * The payload of `approval_requested`: a tool call that passed argument validation and every guard
 * needs a human's approval (the tool's `needsApproval`), and the run pauses until it is decided or
 * expires. Emitted before the run pauses; a resumed or replayed run emits it again for the same
 * `approvalId` (the id is derived from the run, turn, call and arguments, so it is the same every time).
 */
export interface ApprovalRequestedEvent extends ApprovalCall {
  /** The arguments the tool would run on (after validation and the content guards). */
  readonly args: unknown
  /** How long the approval waits before it expires, in ms. */
  readonly timeoutMs: number
  /** `engine`: the run waits in a durable-execution engine; `session`: the run ends and the session store holds the approval. */
  readonly via: 'engine' | 'session'
}

/**
 * The payload of `approval_decided`: the decision a paused tool call resumes with, emitted before it
 * is acted on (before the tool runs, or before the model is told of the rejection or the expiry).
 */
export interface ApprovalDecidedEvent extends ApprovalCall {
  readonly outcome: 'approved' | 'rejected' | 'expired'
  /** The approver's reason, when given (a rejection's is what the model is told). */
  readonly reason: string | undefined
}
