import { EventEmitter } from 'eventemitter3'
import { Observable } from 'rxjs'
import type { GateEvent, GateEventMap, GateEventName } from './event-map.ts'

type Listener<K extends GateEventName> = (payload: GateEventMap[K]) => void
type AnyListener = (event: GateEvent) => void

const ALL = '*'

/**
 * The private emitter behind `gate.on` / `agent.on` and `events$`.
 *
 * Listeners are isolated: one that throws is reported as `listener_error` and never stops the
 * others or the run. Emitting costs nothing when nobody listens (callers check {@link has} before
 * building payloads).
 */
export class EventHub {
  readonly #ee = new EventEmitter()
  #listenerCount = 0

  /** Subscribes to one event; returns the unsubscribe function. */
  on<K extends GateEventName>(name: K, listener: Listener<K>): () => void {
    return this.#add(name, listener as (p: unknown) => void)
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  onAny(listener: AnyListener): () => void {
    return this.#add(ALL, listener as (p: unknown) => void)
  }

  /** All events as an rxjs Observable; each subscription adds one listener, removed on unsubscribe. */
  readonly events$: Observable<GateEvent> = new Observable<GateEvent>((subscriber) =>
    this.onAny((event) => subscriber.next(event)),
  )

  /** True when anyone listens to `name` (or to every event). */
  has(name: GateEventName): boolean {
    return this.#listenerCount > 0 && (this.#ee.listenerCount(name) > 0 || this.#ee.listenerCount(ALL) > 0)
  }

  /** Number of listeners currently attached (all events). */
  get listenerCount(): number {
    return this.#listenerCount
  }

  /** Emits an event to its listeners and to the catch-all ones; listener errors are contained. */
  emit<K extends GateEventName>(name: K, payload: GateEventMap[K]): void {
    if (this.#listenerCount === 0) return
    const specific = this.#ee.listeners(name)
    const any = this.#ee.listeners(ALL)
    if (specific.length === 0 && any.length === 0) return
    for (const fn of specific) this.#call(name, fn, payload)
    if (any.length > 0) {
      const event = { type: name, ...payload } as GateEvent
      for (const fn of any) this.#call(name, fn, event)
    }
  }

  #call(name: string, fn: (...args: unknown[]) => void, arg: unknown): void {
    try {
      fn(arg)
    } catch (error) {
      // A broken listener must not break the run, nor recurse forever through listener_error.
      if (name !== 'listener_error') this.emit('listener_error', { runId: (arg as { runId?: string }).runId ?? '', event: name, error })
    }
  }

  #add(name: string, fn: (p: unknown) => void): () => void {
    this.#ee.on(name, fn)
    this.#listenerCount++
    let active = true
    return () => {
      if (!active) return
      active = false
      this.#ee.off(name, fn)
      this.#listenerCount--
    }
  }
}
