import { shownValue, typeName } from '../model/describe-value.ts'
import { checkConfig } from '../gate/options/check-options.ts'
import { nonNegativeInteger, positiveInteger } from '../model/assert-number.ts'
import { unknownOption } from '../model/known-options.ts'
import { readOption } from '../model/options-contract.ts'
import { AGENT_OPTIONS } from './agent-option-table.ts'
import { EventHub } from '../events/event-hub.ts'
import type { Middleware } from '../policies/middleware.ts'
import type { InferSchema, OutputSchema } from '../validation/index.ts'
import type { AgentOptions, AgentReliability, AgentSpec } from './agent-options.ts'
import type { CostBudget } from './cost-budget.ts'
import type { OutputFallback } from './output-fallback.ts'
import type { AnyTool } from './tools/tool.ts'
import type { SessionStore } from '../sessions/session-store.ts'
import { noProgressSettings } from './no-progress/no-progress-options.ts'

type BuilderState = Omit<AgentSpec, 'events'>

/**
 * What a builder builds, as a function of its output type: `built` read with `output` set to that type
 * (`BuiltAgent<K, T>`). `Agent` supplies `Agent<this['output']>` (`AgentOf`). Generic over it, the builder
 * never names the `Agent` class, whose `Agent.create` returns a builder: naming it would be an import cycle.
 */
export interface AgentKind {
  readonly output: unknown
  readonly built: unknown
}

/** What a builder of kind `K` builds for output type `T`: `Agent<T>` for `Agent.create`'s builders. */
export type BuiltAgent<K extends AgentKind, T> = (K & { readonly output: T })['built']

/** Makes the agent at `build()`; handed in by `Agent.create`. */
export type AgentFactory<K extends AgentKind> = <T>(spec: AgentSpec) => BuiltAgent<K, T>

/**
 * Immutable builder of an agent: every method returns a new builder. `Agent.create` returns one, typed
 * `AgentBuilder<T>`; `K` says what `build()` makes for the output type `T`.
 */
export class AgentBuilderOf<K extends AgentKind, T = string> {
  readonly #state: BuilderState
  readonly #make: AgentFactory<K>

  /** @internal use `Agent.create` */
  constructor(state: BuilderState, make: AgentFactory<K>) {
    this.#state = Object.freeze(state)
    this.#make = make
  }

  /** The next builder: this state with `patch` applied. */
  #with<U>(patch: Partial<BuilderState>): AgentBuilderOf<K, U> {
    return new AgentBuilderOf<K, U>({ ...this.#state, ...patch }, this.#make)
  }

  /** Sets the system prompt. */
  system(text: string): AgentBuilderOf<K, T> {
    if (typeof text !== 'string') throw new TypeError('Agent.system: expected a string')
    return this.#with<T>({ system: text })
  }

  /** Sets the schema every final answer must satisfy; `runTyped` then returns its type. Once only. */
  outputSchema<S extends OutputSchema<unknown>>(schema: S): AgentBuilderOf<K, InferSchema<S>> {
    if (this.#state.outputSchema !== undefined) {
      throw new TypeError('Agent.outputSchema() was already called on this builder: an agent has one output schema')
    }
    if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) {
      throw new TypeError('Agent.outputSchema: expected a TypeBox, Standard Schema, JSON Schema or {parse} object')
    }
    return this.#with<InferSchema<S>>({ outputSchema: schema })
  }

  /** Sets the reliability rules and options (see `strictOutput()` for a declarative preset). Once only. */
  reliability(config: AgentReliability): AgentBuilderOf<K, T> {
    if (this.#state.reliability !== undefined) {
      throw new TypeError('Agent.reliability(): reliability is already set on this builder (it was already called): pass every rule in one call')
    }
    checkConfig(config, 'Agent.reliability')
    if ((config as { contentGuards?: unknown }).contentGuards !== undefined) {
      throw new TypeError('Agent.reliability: contentGuards are an option of Agent.create({ contentGuards }), which screens every surface of a run')
    }
    return this.#with<T>({ reliability: Object.freeze({ ...config }) })
  }

  /** Adds a tool (made by `tool()`); tool names are unique within an agent. */
  tool(t: AnyTool): AgentBuilderOf<K, T> {
    return this.tools([t])
  }

  /** Adds several tools at once. */
  tools(list: readonly AnyTool[]): AgentBuilderOf<K, T> {
    if (!Array.isArray(list)) throw new TypeError('Agent.tools: expected an array of tools')
    const names = new Set(this.#state.tools.map((t) => t.name))
    for (const t of list) {
      if (t === null || typeof t !== 'object' || typeof t.execute !== 'function' || t.spec === undefined) {
        throw new TypeError('Agent.tool: expected a tool made by tool({...})')
      }
      if (names.has(t.name)) throw new TypeError(`Agent.tool: a tool named '${t.name}' was already added`)
      names.add(t.name)
    }
    return this.#with<T>({ tools: Object.freeze([...this.#state.tools, ...list]) })
  }

  /**
   * What to answer when the gate fails fast on the final answer's format (parse or schema failure,
   * retries exhausted, stuck loop): tier 2 `fallback(error, rawOutput)`, re-validated, then tier 3
   * `canned`, validated at `build()`. Once only.
   */
  outputFallback(config: OutputFallback<T>): AgentBuilderOf<K, T> {
    if (this.#state.outputFallback !== undefined) throw new TypeError('Agent.outputFallback() was already called on this builder')
    return this.#with<T>({ outputFallback: Object.freeze({ ...config }) as OutputFallback<unknown> })
  }

  /** A cost budget per run, over every model call of the run. Once only. */
  costBudget(budget: CostBudget): AgentBuilderOf<K, T> {
    if (this.#state.costBudget !== undefined) throw new TypeError('Agent.costBudget() was already called on this builder')
    return this.#with<T>({ costBudget: Object.freeze({ ...budget }) })
  }

  /**
   * Adds links to the attempt chain of every model call of the agent (see `Middleware`): they run
   * after the built-in policies and before the provider call, in the order added.
   *
   * @example
   * Agent.create({ provider }).use(redactPii).use(cacheByBaseRequest).build()
   */
  use(...links: readonly Middleware[]): AgentBuilderOf<K, T> {
    for (const [i, link] of links.entries()) {
      if (typeof link !== 'function') throw new TypeError(`Agent.use: link #${i} must be a function (ctx, next) => Promise<{ response }>, got ${typeof link}`)
    }
    return this.#with<T>({ middleware: Object.freeze([...this.#state.middleware, ...links]) })
  }

  /**
   * Where `agent.session(id)` conversations live (the same as `Agent.create({ sessions })`).
   *
   * @example
   * Agent.create({ provider }).sessions(sqliteSessionStore({ path: 'conversations.db' })).build()
   */
  sessions(store: SessionStore): AgentBuilderOf<K, T> {
    const problem = sessionStoreProblem(store)
    if (problem !== undefined) throw new TypeError(`Agent.sessions: ${problem}`)
    return this.#with<T>({ sessions: store })
  }

  /** Builds the agent; schemas are compiled and options checked here, so a bad one fails now, not mid-run. */
  build(): BuiltAgent<K, T> {
    return this.#make<T>({ ...this.#state, events: new EventHub() })
  }
}

/** Starts building an agent around a provider; `make` builds the agent at `build()`. */
export function createAgentBuilder<K extends AgentKind>(given: AgentOptions, make: AgentFactory<K>): AgentBuilderOf<K, string> {
  const options = given === null || typeof given !== 'object' ? undefined : settledOptions(given)
  // A misspelt key first: `providers` (createGate's key) is told "did you mean provider", not that the provider is missing.
  const unknown = options === undefined ? undefined : unknownOption(given, Object.keys(AGENT_OPTIONS))
  if (unknown !== undefined) throw new TypeError(`Agent.create: ${unknown}`)
  if (options === undefined || typeof options.provider?.complete !== 'function') {
    throw new TypeError('Agent.create: options.provider must be an object with a complete() method')
  }
  const problem = agentOptionsProblem(options)
  if (problem !== undefined) throw new TypeError(`Agent.create: ${problem}`)
  // Numbers are refused where they are written (a RangeError naming them), not first at build().
  nonNegativeInteger(options.maxToolRetries, 'Agent.create: maxToolRetries', 2)
  positiveInteger(options.maxIterations, 'Agent.create: maxIterations', 10)
  noProgressSettings(options.noProgress, 'Agent.create')
  return new AgentBuilderOf<K, string>(
    {
      options: Object.freeze(options),
      system: undefined,
      outputSchema: undefined,
      reliability: undefined,
      tools: Object.freeze([]),
      outputFallback: undefined,
      costBudget: undefined,
      middleware: Object.freeze([]),
      sessions: options.sessions,
    },
    make,
  )
}

/**
 * `Agent.create`'s options, each read once into an object of their own (those `undefined` left out):
 * what is checked is what the agent is built from, and a getter that throws is a `TypeError` naming
 * its option, never the getter's own error.
 */
function settledOptions(given: AgentOptions): AgentOptions {
  const settled: Record<string, unknown> = {}
  for (const key of Object.keys(AGENT_OPTIONS)) {
    const value = readOption(given, key, 'Agent.create')
    if (value !== undefined) settled[key] = value
  }
  return settled as unknown as AgentOptions
}

const LOG_FORMATS: readonly unknown[] = ['auto', 'line', 'fields']
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const

/** Why `Agent.create`'s options (besides the provider and the numbers, checked beside it) cannot work. */
function agentOptionsProblem(options: AgentOptions): string | undefined {
  if (options.name !== undefined && typeof options.name !== 'string') return `name must be a string, got ${typeName(options.name)}`
  if (options.model !== undefined && typeof options.model !== 'string') return `model must be a string, got ${typeName(options.model)}`
  // An empty name or model would name nothing in logs and events, or be sent to the provider as its model.
  if (options.name === '' || options.model === '') return `${options.name === '' ? 'name' : 'model'} must be a non-empty string, got ""`
  if (options.logFormat !== undefined && !LOG_FORMATS.includes(options.logFormat)) {
    return `logFormat must be 'auto', 'line' or 'fields', got ${shownValue(options.logFormat)}`
  }
  if (options.sessions !== undefined) {
    const problem = sessionStoreProblem(options.sessions)
    if (problem !== undefined) return `sessions: ${problem}`
  }
  const logger = options.logger as unknown
  if (logger !== undefined) {
    const methods =
      typeof logger === 'object' && logger !== null ? LOG_LEVELS.filter((level) => typeof (logger as Record<string, unknown>)[level] === 'function') : []
    if (methods.length === 0) return `logger must have at least one of debug(), info(), warn(), error() (console, pino, winston), got ${typeName(logger)}`
  }
  return undefined
}

const STORE_METHODS = ['load', 'append', 'delete'] as const

/** Why `store` is no session store (an object with load(), append() and delete()). */
function sessionStoreProblem(store: unknown): string | undefined {
  if (typeof store !== 'object' || store === null) return `expected a session store (memorySessionStore(), sqliteSessionStore(), ...), got ${typeName(store)}`
  const missing = STORE_METHODS.filter((m) => typeof (store as Record<string, unknown>)[m] !== 'function')
  return missing.length === 0 ? undefined : `a session store needs ${missing.map((m) => `${m}()`).join(', ')}, got ${typeName(store)}`
}
