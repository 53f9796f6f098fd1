import { EventHub } from '../events/event-hub.ts'
import type { InferSchema, OutputSchema } from '../validation/index.ts'
import { Agent } from './agent.ts'
import type { AgentOptions, AgentReliability } from './agent-options.ts'

interface BuilderState {
  readonly options: AgentOptions
  readonly system: string | undefined
  readonly outputSchema: OutputSchema<unknown> | undefined
  readonly reliability: AgentReliability | undefined
}

/**
 * Immutable builder of an {@link Agent}: every method returns a new builder.
 *
 * @example
 * const agent = Agent.create({ provider, model: 'gpt-4o' }).system('Output JSON.').outputSchema(Refund).reliability({ postDecide: strictOutputRules(3) }).build()
 */
export class AgentBuilder<T = string> {
  readonly #state: BuilderState

  /** @internal use `Agent.create` */
  constructor(state: BuilderState) {
    this.#state = Object.freeze(state)
  }

  /** Sets the system prompt. */
  system(text: string): AgentBuilder<T> {
    if (typeof text !== 'string') throw new TypeError('Agent.system: expected a string')
    return new AgentBuilder<T>({ ...this.#state, system: text })
  }

  /** Sets the schema every final answer must satisfy; `runTyped` then returns its type. Once only. */
  outputSchema<S extends OutputSchema<unknown>>(schema: S): AgentBuilder<InferSchema<S>> {
    if (this.#state.outputSchema !== undefined) {
      throw new Error('Agent.outputSchema() was already called on this builder: an agent has one output schema')
    }
    if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) {
      throw new TypeError('Agent.outputSchema: expected a TypeBox, Standard Schema, JSON Schema or {parse} object')
    }
    return new AgentBuilder<InferSchema<S>>({ ...this.#state, outputSchema: schema })
  }

  /** Sets the reliability rules and options (see `strictOutput()` for a declarative preset). Once only. */
  reliability(config: AgentReliability): AgentBuilder<T> {
    if (this.#state.reliability !== undefined) {
      throw new Error('Agent.reliability() was already called on this builder: pass every rule in one call')
    }
    return new AgentBuilder<T>({ ...this.#state, reliability: Object.freeze({ ...config }) })
  }

  /** Builds the agent; the output schema is compiled here, so a bad schema fails now, not mid-run. */
  build(): Agent<T> {
    return new Agent<T>({ ...this.#state, events: new EventHub() })
  }
}

/** Starts building an agent around a provider. */
export function createAgentBuilder(options: AgentOptions): AgentBuilder<string> {
  if (options === null || typeof options !== 'object' || typeof options.provider?.complete !== 'function') {
    throw new TypeError('Agent.create: options.provider must be an object with a complete() method')
  }
  return new AgentBuilder<string>({ options: Object.freeze({ ...options }), system: undefined, outputSchema: undefined, reliability: undefined })
}
