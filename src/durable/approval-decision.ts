import { option, optionsContract } from '../model/options-contract.ts'

/** A human's decision on a paused tool call. */
export interface ApprovalDecision {
  /** `true` runs the call; `false` does not, and the model is told (with `reason`). */
  readonly approved: boolean
  /** Why (at most 2,000 characters): a rejection's reason is what the model is told. */
  readonly reason?: string
  /**
   * The digest of the arguments the approver saw (`pending.argsDigest`): when given, a decision
   * for other arguments is refused, so an approval never applies to an edited call.
   */
  readonly argsDigest?: string
}

/** The longest reason a decision may carry. */
export const MAX_REASON = 2000

/** A decision's fields: a misspelt one (`aproved`) is refused with "did you mean", not ignored. */
export const DECISION = optionsContract<ApprovalDecision>('approval decision', {
  approved: option.boolean(),
  reason: option.where(`a string of at most ${MAX_REASON} characters`, (v) => typeof v === 'string' && v.length <= MAX_REASON),
  argsDigest: option.where('the 64 hex digits of the pending approval', (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)),
})

/**
 * The decision `value` holds, as a fresh plain object, or what is wrong with it (a string): it
 * crosses a process or an engine's journal, so nothing else is read from it.
 */
export function readDecision(value: unknown): ApprovalDecision | string {
  try {
    return readFields(value)
  } catch {
    // A getter or a proxy that throws: nothing of it is read.
    return 'a decision is plain data; this one could not be read'
  }
}

function readFields(value: unknown): ApprovalDecision | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'a decision is an object { approved, reason?, argsDigest? }'
  let checked: ApprovalDecision
  try {
    // The fields as checked, each read once: a getter answering a short reason to the check cannot hand on a long one.
    checked = DECISION.check(value as ApprovalDecision)
  } catch (error) {
    return (error as Error).message
  }
  const { approved, reason, argsDigest } = checked
  if (typeof approved !== 'boolean') return 'approval decision: approved must be true or false'
  return { approved, ...(reason === undefined ? {} : { reason }), ...(argsDigest === undefined ? {} : { argsDigest }) }
}

/** The name of the signal (a Restate workflow promise, a DBOS topic) a paused run waits on for `approvalId`. */
export function approvalSignal(approvalId: string): string {
  return `approval:${approvalId}`
}

/** The shape of every approval id (`apr_` and 32 hex digits): anything else is refused before a store or an engine is asked. */
export const APPROVAL_ID = /^apr_[0-9a-f]{32}$/

/** The decision as a fresh plain object, or a `TypeError` saying what is wrong with it (or with the approval id). */
export function checkDecision(label: string, approvalId: unknown, decision: unknown): ApprovalDecision {
  if (typeof approvalId !== 'string' || !APPROVAL_ID.test(approvalId))
    throw new TypeError(`${label}: approvalId must be an approval id ('apr_' and 32 hex digits), got ${JSON.stringify(String(approvalId).slice(0, 100))}`)
  const read = readDecision(decision)
  if (typeof read === 'string') throw new TypeError(`${label}: ${read}`)
  return read
}
