import type { Observable } from 'rxjs'
import type { GateEvent, GateEventMap, GateEventName } from '../events/event-map.ts'
import { createGate, type Gate } from '../gate/create-gate.ts'
import type { Message } from '../model/message.ts'
import { createAgentBuilder, type AgentBuilder } from './agent-builder.ts'
import type { AgentOptions, AgentSpec } from './agent-options.ts'
import type { RunInput, RunOptions } from './run-input.ts'
import type { RunResult } from './run-result.ts'
import { Session } from './session.ts'

/**
 * A built agent: a system prompt, an output schema and reliability rules around a provider.
 * Build one with `Agent.create(...)...build()`.
 */
export class Agent<T = string> {
  readonly name: string
  readonly #spec: AgentSpec
  readonly #gate: Gate<T>
  readonly #default: Session<T>

  /** @internal use `Agent.create(...).build()` */
  constructor(spec: AgentSpec) {
    this.#spec = spec
    this.name = spec.options.name ?? 'agent'
    const r = spec.reliability ?? {}
    const { providers, ...rules } = r
    this.#gate = createGate<T>({
      ...rules,
      providers: providers ?? spec.options.provider,
      ...(spec.options.model !== undefined ? { model: spec.options.model } : {}),
      ...(spec.outputSchema !== undefined ? { outputSchema: spec.outputSchema as never } : {}),
      events: spec.events,
    })
    this.#default = new Session(this.#gate, spec.system)
  }

  /**
   * Starts building an agent around a provider.
   *
   * @example
   * const agent = Agent.create({ provider: simulated(), model: 'sim-1' }).outputSchema(Refund).build()
   */
  static create(options: AgentOptions): AgentBuilder<string> {
    return createAgentBuilder(options)
  }

  /** The default session's persisted history. */
  get history(): readonly Message[] {
    return this.#default.history
  }

  /** Runs one exchange in the default session and returns the answer's text. */
  run(input: RunInput, options?: RunOptions): Promise<string> {
    return this.#default.run(input, options)
  }

  /** Runs one exchange and returns the validated value; throws `ReliabilityFailFastError` when the gate gives up. */
  runTyped(input: RunInput, options?: RunOptions): Promise<T> {
    return this.#default.runTyped(input, options)
  }

  /** Runs one exchange and returns the text, value, attempt logs, usage and cost. */
  runDetailed(input: RunInput, options?: RunOptions): Promise<RunResult<T>> {
    return this.#default.runDetailed(input, options)
  }

  /** A new conversation with its own persisted history, sharing this agent's gate and events. */
  session(): Session<T> {
    return new Session(this.#gate, this.#spec.system)
  }

  /** Subscribes to one event; returns the unsubscribe function. A throwing listener never affects a run. */
  on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void {
    return this.#spec.events.on(name, listener)
  }

  /** Every event of every run of this agent, as an rxjs Observable. */
  get events$(): Observable<GateEvent> {
    return this.#spec.events.events$
  }
}
