import { DBOS } from '@dbos-inc/dbos-sdk'
import { type ApprovalDecision, approvalSignal, checkDecision } from './approval-decision.ts'

/** What sends the decision: `DBOS.send` by default, or a `DBOSClient` (a process that does not run the workflows). */
export interface DbosSender {
  send<T>(destinationID: string, message: T, topic?: string, idempotencyKey?: string): Promise<void>
}

/**
 * Decides a paused tool call's approval in the DBOS workflow `workflowId` (an agent run over
 * `dbosPort()`): one `DBOS.send` on the approval's topic, with the approval id as its idempotency
 * key, so DBOS records one decision whatever number of processes or retries send one: the first
 * sent is the one the run receives, later ones are dropped.
 *
 * @example
 * await sendApproval('refund-42', pending.approvalId, { approved: true, argsDigest: pending.argsDigest })
 */
export async function sendApproval(workflowId: string, approvalId: string, decision: ApprovalDecision, sender: DbosSender = DBOS): Promise<void> {
  const checked = checkDecision('sendApproval', approvalId, decision)
  if (typeof workflowId !== 'string' || workflowId === '') throw new TypeError('sendApproval: workflowId must be a non-empty string')
  const topic = approvalSignal(approvalId)
  await sender.send(workflowId, checked, topic, `${workflowId}:${topic}`)
}
