import type { EventHub } from '../events/event-hub.ts'
import { messageOf } from '../model/message-of.ts'
import type { OnOtelError } from './safe-span.ts'

/**
 * Where a tracer or meter that throws is reported: as a `listener_error` of the run whose event was
 * being handled (once per run: a broken tracer throws on every call), and once per instrumentation
 * as a process warning (for a process nobody listens to). The run goes on either way.
 *
 * @internal
 */
export class OtelErrors {
  readonly #hub: EventHub | undefined
  #warned = false
  #lastRun: string | undefined = undefined
  /** The event being handled, and its run (the handlers call the tracer and meter synchronously). */
  #event = 'instrument'
  #runId = ''

  constructor(hub: EventHub | undefined) {
    this.#hub = hub
  }

  /** Handles one event: errors reported meanwhile name it and its run. */
  handling(event: string, runId: unknown, handle: () => void): void {
    const before = this.#event
    const beforeRun = this.#runId
    this.#event = event
    this.#runId = typeof runId === 'string' ? runId : ''
    try {
      handle()
    } finally {
      this.#event = before
      this.#runId = beforeRun
    }
  }

  readonly report: OnOtelError = (what, error) => {
    if (!this.#warned) {
      this.#warned = true
      process.emitWarning(
        `reliability-gate instrument: ${what} threw (${messageOf(error)}); the run goes on, its telemetry may be incomplete. Further errors are not reported as warnings.`,
      )
    }
    const runId = this.#runId
    if (this.#hub === undefined || runId === this.#lastRun) return
    this.#lastRun = runId
    if (this.#hub.has('listener_error')) this.#hub.emit('listener_error', { runId, event: this.#event, error })
  }
}
