// `reliability-gate/restate`: a run's durable port over a Restate handler's context.
export { restatePort } from './durable/restate-port.ts'
export type { RestateContextLike } from './durable/restate-port.ts'
export type { DurablePort } from './durable/durable-port.ts'
export { resolveApproval } from './durable/restate-approval.ts'
export type { RestatePromiseContextLike } from './durable/restate-approval.ts'
export type { ApprovalDecision } from './durable/approval-decision.ts'
