/** A human's decision on a paused tool call. */
export interface ApprovalDecision {
  /** `true` runs the call; `false` does not, and the model is told (with `reason`). */
  readonly approved: boolean
  /** Why (at most {@link MAX_REASON} characters): a rejection's reason is what the model is told. */
  readonly reason?: string
  /**
   * The digest of the arguments the approver saw (`pending.argsDigest`): when given, a decision
   * for other arguments is refused, so an approval never applies to an edited call.
   */
  readonly argsDigest?: string
}

/** The longest reason a decision may carry. */
export const MAX_REASON = 2000

const KEYS = new Set(['approved', 'reason', 'argsDigest'])

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
  const record = value as Record<string, unknown>
  const unknown = Object.keys(record).filter((key) => !KEYS.has(key))
  if (unknown.length > 0) return `a decision has no ${unknown.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}`
  const { approved, reason, argsDigest } = record
  if (typeof approved !== 'boolean') return 'approved must be true or false'
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON)) return `reason must be a string of at most ${MAX_REASON} characters`
  if (argsDigest !== undefined && (typeof argsDigest !== 'string' || !/^[0-9a-f]{64}$/.test(argsDigest)))
    return 'argsDigest must be the 64 hex digits of the pending approval'
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
