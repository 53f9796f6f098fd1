import type { Observable } from 'rxjs'
import type { EventHub } from './event-hub.ts'
import type { GateEvent, GateEventMap, GateEventName } from './event-map.ts'

/** Where a gate or an agent keeps its event hub, for the library's own monitors (not public). */
export const EVENT_HUB: unique symbol = Symbol.for('reliability-gate.eventHub') as never

/**
 * What observability tools need of a gate or an agent: its public event subscription. Both
 * `createGate(...)` and a built `Agent` are event sources.
 */
export interface EventSource {
  /** Subscribes to one event; returns the unsubscribe function. */
  on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void
  /** Every event, as an rxjs Observable. */
  readonly events$: Observable<GateEvent>
}

/** The hub behind a gate or an agent of this library; `undefined` for any other event source. */
export function hubOf(source: EventSource): EventHub | undefined {
  return (source as { readonly [EVENT_HUB]?: EventHub })[EVENT_HUB]
}
