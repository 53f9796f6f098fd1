import { assertObject, assertString } from '../../model/argument-checks.ts'
import { hasBrand } from '../../model/brand.ts'
import type { PendingApproval } from './approval-types.ts'

const PENDING = Symbol.for('reliability-gate.ApprovalPendingError')
const REFUSED = Symbol.for('reliability-gate.ApprovalError')

/**
 * A run that paused: a tool call needs a human's approval and the session store holds it. Nothing
 * was committed; `session.approve(approvalId, decision)` records the decision and
 * `session.resume(approvalId)` goes on from the paused call (running it once when approved).
 */
export class ApprovalPendingError extends Error {
  override readonly name = 'ApprovalPendingError'
  readonly code = 'ERR_RELIABILITY_APPROVAL_PENDING'
  readonly approval: PendingApproval
  readonly [PENDING] = true

  constructor(approval: PendingApproval) {
    assertObject(approval, 'ApprovalPendingError: approval', 'a pending approval { runId, approvalId, tool, callId, argsDigest, ... }')
    for (const key of ['runId', 'approvalId', 'tool', 'callId', 'argsDigest'] as const) assertString(approval[key], `ApprovalPendingError: approval.${key}`)
    super(
      `run ${approval.runId} is waiting for approval ${approval.approvalId} of tool '${approval.tool}' (call ${approval.callId}, arguments ${approval.argsDigest.slice(0, 12)}…)`,
    )
    this.approval = Object.freeze({ ...approval })
  }
}

/** Brand check that works across realms and duplicate package copies. */
export function isApprovalPendingError(value: unknown): value is ApprovalPendingError {
  return hasBrand(value, PENDING)
}

/**
 * Why an approval call was refused: an id that is no approval id (`invalid-id`), one the session does
 * not hold (`unknown-approval`), a decision naming other arguments (`digest-mismatch`) or not a
 * decision (`invalid-decision`), an approval already decided (`already-decided`: the claim is once)
 * or expired (`expired`), a resume before any decision (`not-decided`), a resume another process
 * holds (`already-claimed`) or finished (`already-resumed`), a record the store holds that is not
 * one the library wrote (`corrupt-record`), and a store without approval records (`no-approval-store`).
 */
export type ApprovalErrorKind =
  | 'invalid-id'
  | 'unknown-approval'
  | 'digest-mismatch'
  | 'invalid-decision'
  | 'already-decided'
  | 'expired'
  | 'not-decided'
  | 'already-claimed'
  | 'already-resumed'
  | 'corrupt-record'
  | 'no-approval-store'

/** A refused approval or resume, typed. */
export class ApprovalError extends Error {
  override readonly name = 'ApprovalError'
  readonly code = 'ERR_RELIABILITY_APPROVAL'
  readonly kind: ApprovalErrorKind
  /** The approval id as given (cut to 100 characters). */
  readonly approvalId: string
  readonly [REFUSED] = true

  constructor(kind: ApprovalErrorKind, approvalId: string, reason: string) {
    assertString(kind, 'ApprovalError: kind')
    assertString(approvalId, 'ApprovalError: approvalId')
    assertString(reason, 'ApprovalError: reason')
    super(`approval ${JSON.stringify(approvalId.slice(0, 100))} (${kind}): ${reason}`)
    this.kind = kind
    this.approvalId = approvalId.slice(0, 100)
  }
}

/** Brand check that works across realms and duplicate package copies. */
export function isApprovalError(value: unknown): value is ApprovalError {
  return hasBrand(value, REFUSED)
}
