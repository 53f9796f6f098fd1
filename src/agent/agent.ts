import { assertObject } from '../model/argument-checks.ts'
import type { Observable } from 'rxjs'
import type { GateEvent, GateEventMap, GateEventName } from '../events/event-map.ts'
import { registerHub } from '../events/event-source.ts'
import type { GateStreamOptions } from '../gate/stream/index.ts'
import type { AgentStream } from './agent-stream.ts'
import type { Message } from '../model/message.ts'
import { type AgentBuilderOf, type AgentKind, createAgentBuilder } from './agent-builder.ts'
import type { AgentOptions, AgentSpec } from './agent-options.ts'
import { createRuntime, type AgentRuntime } from './agent-runtime.ts'
import type { RunInput, RunOptions } from './run-input.ts'
import type { RunResult } from './run-result.ts'
import { Session } from './session.ts'
import type { ApprovalDecision } from './approval/approval-types.ts'
import type { ApprovalClaim } from './approval/session-approvals.ts'
import type { ResumeOptions } from './approval/resume-options.ts'
import { memorySessionStore } from '../sessions/memory-session-store.ts'
import type { SessionStore } from '../sessions/session-store.ts'
import { loadConversation, type SessionOptions, storedLink } from './stored-conversation.ts'

/** What `Agent.create`'s builders build: an `Agent` of the builder's output type. */
export interface AgentOf extends AgentKind {
  readonly built: Agent<this['output']>
}

/**
 * Immutable builder of an {@link Agent}, made by `Agent.create`: every method returns a new builder.
 *
 * @example
 * const agent = Agent.create({ provider, model: 'gpt-4o' })
 *   .system('Output JSON.')
 *   .outputSchema(Refund)
 *   .tools([lookupOrder, issueRefund])
 *   .reliability({ postDecide: strictOutputRules(3) })
 *   .build()
 */
export type AgentBuilder<T = string> = AgentBuilderOf<AgentOf, T>

/**
 * A built agent: a system prompt, an output schema, tools and reliability rules around a provider.
 * Build one with `Agent.create(...)...build()`.
 */
export class Agent<T = string> {
  readonly name: string
  readonly #runtime: AgentRuntime<T>
  readonly #default: Session<T>
  /** Where `session(id)` conversations live: the agent's `sessions` option, else one memory store of its own. */
  #sessions: SessionStore | undefined

  /** @internal use `Agent.create(...).build()` */
  constructor(spec: AgentSpec) {
    assertObject(spec, 'new Agent: spec', 'what Agent.create(...).build() gives (build an agent with Agent.create)')
    assertObject(spec.options, 'new Agent: spec.options', 'the options of Agent.create (build an agent with Agent.create)')
    this.#runtime = createRuntime<T>(spec)
    this.name = this.#runtime.name
    this.#default = new Session(this.#runtime)
    this.#sessions = spec.sessions
    registerHub(this, this.#runtime.events)
  }

  /**
   * Starts building an agent around a provider.
   *
   * @example
   * const agent = Agent.create({ provider: simulated(), model: 'sim-1' }).outputSchema(Refund).build()
   */
  static create(options: AgentOptions): AgentBuilder<string> {
    return createAgentBuilder<AgentOf>(options, <T>(spec: AgentSpec) => new Agent<T>(spec))
  }

  /** The default session's persisted history. */
  get history(): readonly Message[] {
    return this.#default.history
  }

  /**
   * Runs one exchange in the default session and returns the answer's text. `options.runTimeoutMs`
   * (else the agent's `reliability({ runTimeoutMs })`) bounds the whole run, tools included: past it
   * the run fails with kind `run-timeout`. A misspelt option is refused with "did you mean".
   */
  run(input: RunInput, options?: RunOptions): Promise<string> {
    return this.#default.run(input, options)
  }

  /**
   * Runs one exchange and returns the validated value; throws `ReliabilityFailFastError` when the gate
   * gives up. The value has the output schema's type; a type argument names it instead, as in
   * agentfootprint (`runTyped<Refund>(...)`), for a schema whose type cannot be inferred (a raw
   * JSON Schema, a `{parse}` object typed `unknown`). It is not checked against the schema.
   *
   * @example
   * const refund = await agent.runTyped<Refund>({ message: 'refund order #42 for $50' })
   */
  runTyped<R = T>(input: RunInput, options?: RunOptions): Promise<R> {
    return this.#default.runTyped<R>(input, options)
  }

  /** Runs one exchange and returns the text, value, `functionsCalled`, attempt logs, usage and cost. */
  runDetailed(input: RunInput, options?: RunOptions): Promise<RunResult<T>> {
    return this.#default.runDetailed(input, options)
  }

  /** Records a decision on a tool call a run of the default session paused on (see `Session.approve`). */
  approve(approvalId: string, decision: ApprovalDecision): Promise<ApprovalClaim> {
    return this.#default.approve(approvalId, decision)
  }

  /** Goes on with a run of the default session paused on `approvalId`, once decided or expired (see `Session.resume`). */
  resume(approvalId: string, options?: ResumeOptions): Promise<RunResult<T>> {
    return this.#default.resume(approvalId, options)
  }

  /** Runs one exchange in the default session with its model calls streamed (see `Session.stream`); `.result` is `runDetailed`'s result. */
  stream(input: RunInput, options?: RunOptions & Pick<GateStreamOptions, 'mode'>): AgentStream<T> {
    return this.#default.stream(input, options)
  }

  /** A new conversation with its own persisted history in this process's memory, sharing this agent's gate, tools and events. */
  session(): Session<T>
  /**
   * Opens the conversation `id` of the agent's session store (`Agent.create({ sessions })`, else a
   * memory store of this agent), loading its history once. Each accepted exchange is committed to
   * the store whole before the run's result is handed out. The load waits at most `loadTimeoutMs`
   * (default 30 s; past it the promise rejects with kind `timeout`); options it does not take
   * (`onconflict`, `window: { maxMesages }`) are refused with "did you mean".
   *
   * @example
   * const conversation = await agent.session('customer-42', { window: { maxMessages: 40 } })
   * await conversation.run('Where is my order?')
   */
  session(id: string, options?: SessionOptions): Promise<Session<T>>
  session(id?: string, options?: SessionOptions): Session<T> | Promise<Session<T>> {
    if (id === undefined && options === undefined) return new Session(this.#runtime)
    return this.#open(id, options)
  }

  async #open(id: unknown, options: unknown): Promise<Session<T>> {
    this.#sessions ??= memorySessionStore()
    const link = storedLink(this.#sessions, id, options)
    return new Session(this.#runtime, link, await loadConversation(link))
  }

  /** Subscribes to one event; returns the unsubscribe function. A throwing listener never affects a run. */
  on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void {
    return this.#runtime.events.on(name, listener)
  }

  /** Every event of every run of this agent, as an rxjs Observable. */
  get events$(): Observable<GateEvent> {
    return this.#runtime.events.events$
  }
}
