// `reliability-gate/restate`: a run's durable port over a Restate handler's context.
export { restatePort } from './durable/restate-port.ts'
export type { RestateContextLike } from './durable/restate-port.ts'
export type { DurablePort } from './durable/durable-port.ts'
