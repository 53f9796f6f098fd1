import type { GateEventMap, GateEventName } from '../events/event-map.ts'
import type { EventSource } from '../events/event-source.ts'
import type { OtelErrors } from './otel-errors.ts'

/** What `instrument()` does with each event it listens to. */
export type Handlers = { readonly [K in GateEventName]?: (e: GateEventMap[K]) => void }

/**
 * The subscriptions of one `instrument()`: some always on, the per-attempt ones only while there is
 * something to report. The gate builds an event's payload only when someone listens to it, so a
 * listener left off costs a run nothing. Every handler is behind a try: whatever it meets, the run
 * never sees it.
 */
export class RunListeners {
  readonly #source: EventSource
  readonly #errors: OtelErrors
  #always: readonly (() => void)[] = []
  #perRun: Handlers = {}
  #perRunOffs: readonly (() => void)[] | undefined
  #stopped = false

  constructor(source: EventSource, errors: OtelErrors) {
    this.#source = source
    this.#errors = errors
  }

  /**
   * Subscribes `always` now (a source whose `on()` throws throws here, subscribed to nothing);
   * `perRun` waits for {@link follow}, unless `perRunAlways` (then it is on from now on too).
   */
  start(always: Handlers, perRun: Handlers, perRunAlways: boolean): void {
    this.#perRun = perRunAlways ? {} : perRun
    const offs: (() => void)[] = []
    try {
      this.#subscribe(perRunAlways ? { ...always, ...perRun } : always, offs)
    } catch (error) {
      for (const off of offs) off()
      throw error
    }
    this.#always = offs
  }

  /**
   * Called as each run starts: the per-attempt listeners are on while any run records, and go off
   * at the start of a run when none does. A run that records keeps them on through its end and
   * until the next run starts, so back-to-back recording runs do not subscribe again each time.
   */
  follow(anyRecording: boolean): void {
    if (this.#stopped) return
    if (anyRecording && this.#perRunOffs === undefined) {
      const offs: (() => void)[] = []
      // Kept before subscribing: a source whose on() throws half-way still has its listeners removed later.
      this.#perRunOffs = offs
      this.#subscribe(this.#perRun, offs)
    } else if (!anyRecording && this.#perRunOffs !== undefined) this.#offPerRun()
  }

  /** Removes every listener; idempotent. */
  stop(): void {
    if (this.#stopped) return
    this.#stopped = true
    for (const off of this.#always) off()
    this.#offPerRun()
  }

  #offPerRun(): void {
    const offs = this.#perRunOffs
    this.#perRunOffs = undefined
    if (offs !== undefined) for (const off of offs) off()
  }

  #subscribe(handlers: Handlers, offs: (() => void)[]): void {
    for (const [name, handler] of Object.entries(handlers)) {
      const errors = this.#errors
      const off = this.#source.on(name as GateEventName, (e: unknown) => {
        errors.handling(name, (e as { runId?: unknown }).runId, () => {
          try {
            ;(handler as (e: unknown) => void)(e)
          } catch (error) {
            errors.report(`the ${name} handler`, error)
          }
        })
      })
      offs.push(off)
    }
  }
}
