import { EventEmitter } from 'eventemitter3'
import type { Observable } from 'rxjs'
import type { GateEvent, GateEventMap, GateEventName } from './event-map.ts'
import { GATE_EVENT_NAMES } from './event-names.ts'
import { freezePayload } from './frozen-payload.ts'
import { lazyObservable } from './lazy-observable.ts'
import { containReturned } from '../model/user-code.ts'
import { nearName, shownName } from '../model/known-options.ts'
import { shownValue } from '../model/describe-value.ts'

type Listener<K extends GateEventName> = (payload: GateEventMap[K]) => void
type AnyListener = (event: GateEvent) => void

/** The emitter's typed map: one payload argument per event name. */
type HubEvents = { [K in GateEventName]: [payload: GateEventMap[K]] }

/** What the emitter stores: a listener already isolated, called with its event name as `this`. */
type Isolated = (this: GateEventName, payload: unknown) => void

const KNOWN_NAMES: ReadonlySet<string> = new Set(GATE_EVENT_NAMES)

/** An event name `on` does not know, as its error says it: quoted, bounded, with the name it is near (`did you mean`). */
function unknownEvent(name: unknown): string {
  if (typeof name !== 'string') return `the event name must be a string, got ${shownValue(name)}`
  const near = nearName(name, GATE_EVENT_NAMES)
  return `unknown event ${shownName(name)}${near !== undefined ? ` (did you mean "${near}"?)` : ''}`
}

/**
 * The private emitter behind `gate.on` / `agent.on` and `events$`.
 *
 * @internal
 *
 * Listeners are stored and called by an `eventemitter3` emitter, each wrapped once, when it is added,
 * so that one that throws (or rejects) is reported as `listener_error` and never stops the others or
 * the run. An emit in progress calls the listeners present when it started: eventemitter3 reads the
 * list once and replaces it (never edits it in place) when one is removed. Emitting costs nothing
 * when nobody listens (callers check {@link has} before building payloads).
 */
export class EventHub {
  readonly #emitter = new EventEmitter<HubEvents, GateEventName>()
  // Listeners per name, kept beside the emitter's lists: `has` runs several times per run, and a named
  // field of one fixed-shape object reads faster than the emitter's table of lists.
  readonly #counts: Record<GateEventName, number> = countsByName()
  #listenerCount = 0

  /** Subscribes to one event; returns the unsubscribe function. */
  on<K extends GateEventName>(name: K, listener: Listener<K>): () => void {
    // A misspelt name would never be heard: say so at once.
    if (!KNOWN_NAMES.has(name)) throw new TypeError(`on: ${unknownEvent(name)}; the events are ${GATE_EVENT_NAMES.join(', ')}`)
    if (typeof listener !== 'function') throw new TypeError(`on('${name}'): the listener must be a function, got ${typeof listener}`)
    const hub = this
    return this.#add([name], function isolated(this: GateEventName, payload: unknown) {
      hub.#call(this, listener as (arg: unknown) => unknown, payload)
    })
  }

  /**
   * Subscribes to every event; returns the unsubscribe function. The listener is registered under
   * every name, in the order of subscription like any other, and gets the name with the payload.
   */
  onAny(listener: AnyListener): () => void {
    if (typeof listener !== 'function') throw new TypeError(`onAny: the listener must be a function, got ${typeof listener}`)
    const hub = this
    return this.#add(GATE_EVENT_NAMES, function isolatedAny(this: GateEventName, payload: unknown) {
      hub.#call(this, listener as (arg: unknown) => unknown, Object.freeze({ type: this, ...(payload as object) }))
    })
  }

  /**
   * All events as an rxjs Observable; each subscription adds one listener, removed on unsubscribe.
   * rxjs loads on the first use, never with the library (see `lazyObservable`).
   */
  readonly events$: Observable<GateEvent> = lazyObservable<GateEvent>((observer) => this.onAny((event) => observer.next(event)))

  /** True when anyone listens to `name` (or to every event). */
  has(name: GateEventName): boolean {
    return this.#counts[name] !== 0
  }

  /** Number of listeners currently attached (all events; a catch-all listener counts once). */
  get listenerCount(): number {
    return this.#listenerCount
  }

  /**
   * Emits an event to its listeners (catch-all ones included); listener errors are contained. The
   * payload is frozen first, deeply (see `freezePayload`): nobody can change what the caller gets.
   */
  emit<K extends GateEventName>(name: K, payload: GateEventMap[K]): void {
    if (this.#counts[name] === 0) return
    // Listeners get frozen values: what one of them edits would reach the caller's result and the next event.
    try {
      freezePayload(payload)
    } catch {
      // A value whose fields cannot be read (a hostile getter) is still reported as it is.
    }
    // eventemitter3's typings cannot resolve the argument map for a generic name; `on` typed it.
    this.#emitter.emit(name, payload as never)
  }

  #call(name: GateEventName, fn: (arg: unknown) => unknown, arg: unknown): void {
    let returned: unknown
    try {
      returned = fn(arg)
    } catch (error) {
      this.#failed(name, arg, error)
      return
    }
    // An async listener that rejects is a broken listener too, never an unhandled rejection.
    if (returned !== undefined) containReturned(returned, (error) => this.#failed(name, arg, error))
  }

  /** A broken listener must not break the run, nor recurse forever through listener_error. */
  #failed(name: GateEventName, arg: unknown, error: unknown): void {
    if (name === 'listener_error') return
    let runId = ''
    try {
      const id = (arg as { runId?: unknown }).runId
      if (typeof id === 'string') runId = id
    } catch {
      // A payload that cannot be read still reports its listener.
    }
    this.emit('listener_error', { runId, event: name, error })
  }

  // Each registration is its own wrapper, so removing one never removes another registration of the
  // same user function; the event name reaches the wrapper as the emitter's `this` (its context).
  #add(names: readonly GateEventName[], isolated: Isolated): () => void {
    const emitter = this.#emitter
    const counts = this.#counts
    for (const name of names) {
      emitter.on(name, isolated, name)
      counts[name]++
    }
    this.#listenerCount++
    let active = true
    return () => {
      if (!active) return
      active = false
      this.#listenerCount--
      for (const name of names) {
        emitter.off(name, isolated)
        counts[name]--
      }
    }
  }
}

/** A count of 0 for every event name, in one fixed order: every hub's table has the same shape. */
function countsByName(): Record<GateEventName, number> {
  const counts = {} as Record<GateEventName, number>
  for (const name of GATE_EVENT_NAMES) counts[name] = 0
  return counts
}
