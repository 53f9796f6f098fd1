import type { Observable } from 'rxjs'
import type { GateEvent, GateEventMap, GateEventName } from './event-map.ts'
import { GATE_EVENT_NAMES } from './event-names.ts'
import { freezePayload } from './frozen-payload.ts'
import { lazyObservable } from './lazy-observable.ts'
import { containReturned } from '../model/user-code.ts'

type Listener<K extends GateEventName> = (payload: GateEventMap[K]) => void
type AnyListener = (event: GateEvent) => void
type Fn = (arg: unknown) => void

const NONE: readonly Fn[] = Object.freeze([])
const KNOWN_NAMES: ReadonlySet<string> = new Set(GATE_EVENT_NAMES)

/**
 * The private emitter behind `gate.on` / `agent.on` and `events$`.
 *
 * @internal
 *
 * Listeners are isolated: one that throws is reported as `listener_error` and never stops the
 * others or the run. Emitting costs nothing when nobody listens (callers check {@link has} before
 * building payloads).
 */
export class EventHub {
  // Copy-on-write listener lists: `has` is one lookup, and an emit in progress keeps the lists it
  // started with when a listener (un)subscribes during it. Only names with listeners are keys.
  readonly #byName = new Map<string, readonly Fn[]>()
  #any: readonly Fn[] = NONE
  #listenerCount = 0
  // One flag per event name, in an object of fixed shape: `has('x')` at a call site is one
  // monomorphic property load (it runs several times per attempt). Recomputed on (un)subscribe.
  readonly #wants: Record<string, boolean> = noneWanted()

  /** Subscribes to one event; returns the unsubscribe function. */
  on<K extends GateEventName>(name: K, listener: Listener<K>): () => void {
    // A misspelt name would never be heard: say so at once.
    if (!KNOWN_NAMES.has(name)) throw new TypeError(`on: unknown event ${JSON.stringify(name)}; the events are ${GATE_EVENT_NAMES.join(', ')}`)
    if (typeof listener !== 'function') throw new TypeError(`on('${name}'): the listener must be a function, got ${typeof listener}`)
    return this.#add(name, listener as Fn)
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  onAny(listener: AnyListener): () => void {
    if (typeof listener !== 'function') throw new TypeError(`onAny: the listener must be a function, got ${typeof listener}`)
    return this.#add(undefined, listener as Fn)
  }

  /**
   * All events as an rxjs Observable; each subscription adds one listener, removed on unsubscribe.
   * rxjs loads on the first use, never with the library (see `lazyObservable`).
   */
  readonly events$: Observable<GateEvent> = lazyObservable<GateEvent>((observer) => this.onAny((event) => observer.next(event)))

  /** True when anyone listens to `name` (or to every event). */
  has(name: GateEventName): boolean {
    return this.#wants[name] === true
  }

  /** Number of listeners currently attached (all events). */
  get listenerCount(): number {
    return this.#listenerCount
  }

  /**
   * Emits an event to its listeners and to the catch-all ones; listener errors are contained. The
   * payload is frozen first, deeply (see `freezePayload`): nobody can change what the caller gets.
   */
  emit<K extends GateEventName>(name: K, payload: GateEventMap[K]): void {
    const specific = this.#byName.get(name)
    const any = this.#any
    if (specific === undefined && any.length === 0) return
    // Listeners get frozen values: what one of them edits would reach the caller's result and the next event.
    try {
      freezePayload(payload)
    } catch {
      // A value whose fields cannot be read (a hostile getter) is still reported as it is.
    }
    if (specific !== undefined) for (const fn of specific) this.#call(name, fn, payload)
    if (any.length > 0) {
      const event: GateEvent = Object.freeze({ type: name, ...payload } as GateEvent)
      for (const fn of any) this.#call(name, fn, event)
    }
  }

  #call(name: string, fn: Fn, arg: unknown): void {
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
  #failed(name: string, arg: unknown, error: unknown): void {
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

  #add(name: string | undefined, fn: Fn): () => void {
    if (name === undefined) this.#any = [...this.#any, fn]
    else this.#byName.set(name, [...(this.#byName.get(name) ?? NONE), fn])
    this.#listenerCount++
    this.#refresh()
    let active = true
    return () => {
      if (!active) return
      active = false
      this.#listenerCount--
      if (name === undefined) this.#any = without(this.#any, fn)
      else {
        const rest = without(this.#byName.get(name) ?? NONE, fn)
        if (rest.length === 0) this.#byName.delete(name)
        else this.#byName.set(name, rest)
      }
      this.#refresh()
    }
  }

  #refresh(): void {
    const all = this.#any.length > 0
    for (const name of GATE_EVENT_NAMES) this.#wants[name] = all || this.#byName.has(name)
  }
}

function noneWanted(): Record<string, boolean> {
  const wants: Record<string, boolean> = {}
  for (const name of GATE_EVENT_NAMES) wants[name] = false
  return wants
}

// Removes one registration of `fn` (the same function may be registered twice, like with an EventEmitter).
function without(list: readonly Fn[], fn: Fn): readonly Fn[] {
  const at = list.lastIndexOf(fn)
  if (at < 0) return list
  return list.length === 1 ? NONE : [...list.slice(0, at), ...list.slice(at + 1)]
}
