export { instrument } from './instrument.ts'
export type { InstrumentOptions } from './instrument.ts'
export { ATTR, METRIC } from './semconv.ts'
export type { EventSource } from '../events/event-source.ts'
