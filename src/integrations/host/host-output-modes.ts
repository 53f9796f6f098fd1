import type { EventHub } from '../../events/event-hub.ts'
import { BoundedMap } from '../../gate/output-mode/bounded-map.ts'
import { type OutputModeState, outputModeState } from '../../gate/output-mode/output-mode-state.ts'
import type { OutputMode } from '../../model/output-mode.ts'

/** Models a middleware remembers output modes for (each one's memory is bounded too). */
const MODELS = 64

/**
 * The output-mode memory of a host middleware, one per model it calls: a host makes a gate per
 * call, whose own memory would forget at the next call that a provider refused a schema, and pay
 * the refused call again. Kept per model (a middleware may serve several), as a gate keeps it per
 * provider: one model's refusal never lowers another's mode.
 */
export class HostOutputModes {
  readonly #mode: OutputMode | undefined
  readonly #events: EventHub
  readonly #states = new BoundedMap<string, OutputModeState>(MODELS)

  constructor(mode: OutputMode | undefined, events: EventHub) {
    this.#mode = mode
    this.#events = events
  }

  /** The memory for the model named `provider` and `model` (its id), made at its first call. */
  of(provider: string, model: string | undefined): OutputModeState {
    const key = JSON.stringify([provider, model ?? null])
    const known = this.#states.get(key)
    if (known !== undefined) return known
    const made = outputModeState(this.#mode, this.#events)
    this.#states.set(key, made)
    return made
  }
}
