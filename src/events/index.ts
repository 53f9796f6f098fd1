export { EventHub } from './event-hub.ts'
export type { GateEvent, GateEventMap, GateEventName } from './event-map.ts'
