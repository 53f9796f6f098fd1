export { EventHub } from './event-hub.ts'
export type { EventTags, GateEvent, GateEventMap, GateEventName, RunOutcome } from './event-map.ts'
