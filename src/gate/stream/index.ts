export { streamGate, MID_STREAM_NOT_RETRYABLE } from './stream-gate.ts'
export { createGateStream } from './gate-stream.ts'
export type { EventStream, GateStream } from './gate-stream.ts'
export type { GateStreamEvent, GateStreamOptions, StreamMode } from './gate-stream-event.ts'
