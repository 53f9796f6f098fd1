// `reliability-gate/durable`: the port a durable-execution engine gives a run, its journal codec and an in-memory port.
export type { DurablePort, SignalOutcome } from './durable/durable-port.ts'
export type { DurableEngine } from './durable/durable-engine.ts'
export { durablePort, isDurablePort } from './durable/durable-port-of.ts'
export { memoryDurablePort } from './durable/memory-durable-port.ts'
export type { MemoryDurablePortOptions } from './durable/memory-durable-port.ts'
export { DurableRunError, isDurableRunError } from './durable/durable-run-error.ts'
export type { DurableRunErrorKind } from './durable/durable-run-error.ts'
export type { JournalEntry, JournaledFailure, JsonValue } from './durable/journal-entry.ts'
// What the gate journals for each attempt of a durable run (the value of the step `attempt:<turn>:<n>`).
export type { JournaledAttempt, JournaledAttemptFailure } from './gate/run/durable-attempt.ts'
