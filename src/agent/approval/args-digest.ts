import { sha256Hex } from '../../model/sha256.ts'
import { stableKey } from '../../model/stable-key.ts'

export { APPROVAL_ID } from '../../durable/approval-decision.ts'

/**
 * What an approval binds: the SHA-256 (64 lowercase hex digits) of the canonical JSON (keys sorted
 * at every depth) of the tool's name and its exact arguments. Key order does not change it; any
 * other edit does, so an edited call needs an approval of its own.
 *
 * @example
 * argsDigest('refund', { order: 42, amount: 10 }) === argsDigest('refund', { amount: 10, order: 42 }) // true
 */
export function argsDigest(tool: string, args: unknown): string {
  return sha256Hex(stableKey({ tool, args }))
}

/** `apr_` and 32 hex digits: the approval of one call of one run at one turn on one digest, the same on every replay. */
export function approvalIdOf(runId: string, turn: number, callId: string, digest: string): string {
  return `apr_${sha256Hex(`${runId}\n${turn}\n${callId}\n${digest}`).slice(0, 32)}`
}

/** The shape of a digest. */
export const DIGEST = /^[0-9a-f]{64}$/
