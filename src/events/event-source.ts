import type { Observable } from 'rxjs'
import type { EventHub } from './event-hub.ts'
import type { GateEvent, GateEventMap, GateEventName } from './event-map.ts'

// The hub of each gate and agent of this library, for its own monitors (not public).
const hubs = new WeakMap<object, EventHub>()

/** Remembers the hub behind a gate or an agent (see {@link hubOf}). */
export function registerHub<S extends object>(source: S, hub: EventHub): S {
  hubs.set(source, hub)
  return source
}

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
  return hubs.get(source)
}
