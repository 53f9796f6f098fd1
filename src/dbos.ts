// `reliability-gate/dbos`: a run's durable port inside a DBOS workflow (over `@dbos-inc/dbos-sdk`, an optional peer dependency).
export { dbosPort } from './durable/dbos-port.ts'
export type { DurablePort } from './durable/durable-port.ts'
export { sendApproval } from './durable/dbos-approval.ts'
export type { DbosSender } from './durable/dbos-approval.ts'
export type { ApprovalDecision } from './durable/approval-decision.ts'
