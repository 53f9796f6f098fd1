import type { EventHub } from '../events/event-hub.ts'
import type { GateConfig, ProviderEntry } from '../gate/gate-config.ts'
import type { Provider } from '../model/provider.ts'
import type { Middleware } from '../policies/middleware.ts'
import type { OutputSchema } from '../validation/index.ts'
import type { ContentGuard } from '../validation/guards/index.ts'
import type { CostBudget } from './cost-budget.ts'
import type { LogFormat, Logger, StructuredLogger } from './logger.ts'
import type { OutputFallback } from './output-fallback.ts'
import type { ToolGuard } from './tools/guard.ts'
import type { AnyTool } from './tools/tool.ts'
import type { NoProgressOption, NoProgressOptions } from './no-progress/no-progress-options.ts'
import type { SessionStore } from '../sessions/session-store.ts'

/** What `Agent.create` takes. */
export interface AgentOptions {
  readonly provider: Provider
  readonly model?: string
  /** The agent's name, used in logs (`ext=`) and events. @default 'agent' */
  readonly name?: string
  /**
   * Receives the log lines, e.g. `validation_retry_outcome ...`: `console` fits, and so does a
   * pino-style structured logger, called as `info(fields, line)` (see `logFormat`).
   */
  readonly logger?: Logger | StructuredLogger
  /** How `logger` is called: `line`, `fields`, or `auto` (`fields` for a logger with `child()`, like pino). @default 'auto' */
  readonly logFormat?: LogFormat
  /** Model turns of one run before it fails with kind `max-iterations`. @default 10 */
  readonly maxIterations?: number
  /**
   * No-progress detection, on by default: a run that repeats one call, one tool's error, an
   * alternation of two calls or one text is nudged, then forced to change for one turn, then stopped
   * with kind `no-progress` (each rung a `no_progress` event). Tune it with {@link NoProgressOptions};
   * `false` turns it off.
   */
  readonly noProgress?: NoProgressOption
  /** Argument retries per logical tool call (a tool's own `maxRetries` wins). 0 disables. @default 2 */
  readonly maxToolRetries?: number
  /**
   * When a retry of rejected tool arguments is answered in prose, ask once more with `toolChoice`
   * pinned to the tool (once per logical call). Off by default: the seed's `llm_gave_up` lets the
   * prose answer stand. @default false
   */
  readonly forcedToolReask?: boolean
  /**
   * Stop the run with a typed failure instead of the seed's outcomes: prose after rejected tool
   * arguments fails as `tool-call-abandoned`, a retry repeating the rejected arguments of the attempt
   * before it as `schema-stuck-loop`. Off by default: `llm_gave_up` lets the prose answer stand and
   * `redundant` counts against the retry budget until `exhausted`. @default false
   */
  readonly toolGiveUpStops?: boolean
  /**
   * Guards run on every tool call, before each tool's own guards, on every attempt and retry.
   * Replaces the default: keep `idShapeGuard()` in the list to keep it.
   * @default [idShapeGuard()]
   */
  readonly toolGuards?: readonly ToolGuard[]
  /**
   * Content guards, each on the surfaces it declares: the user's input and the loaded history, tool
   * arguments (after validation) and results (before the model sees them: a blocked one is withheld
   * and the model shown a notice), the retry tail, the text of every answer (`output`: redacted
   * before it is returned or committed, and the redacted value re-validated; a re-ask, a block
   * `guard-blocked` or an escalation `guard-escalated`), and `agent.stream`'s deltas (`stream`:
   * held back by the guard's lookback, so nothing it matches is delivered).
   * `piiGuard()`, `secretsGuard()` and `instructionGuard()` are ready-made; make your own with
   * `contentGuard()`. A guard that throws or never settles fails closed unless made `onError: 'open'`.
   * @default []
   */
  readonly contentGuards?: readonly ContentGuard[]
  /**
   * Where `agent.session(id)` conversations live: `memorySessionStore()`, `sqliteSessionStore()`
   * (`reliability-gate/sqlite`), `redisSessionStore()` (`reliability-gate/redis`),
   * `postgresSessionStore()` (`reliability-gate/postgres`) or your own. @default a memory store of the agent
   */
  readonly sessions?: SessionStore
}

/**
 * The agent's reliability options: everything `createGate` takes (rules, feedback, pricing,
 * breaker, shared budget, ...) but the providers, given here as a failover order.
 */
export interface AgentReliability extends Omit<GateConfig<unknown>, 'providers' | 'model' | 'outputSchema' | 'events' | 'contentGuards'> {
  /** Failover order; replaces the provider given to `Agent.create` when set. */
  readonly providers?: readonly (Provider | ProviderEntry)[]
}

/** Everything the builder collected; frozen by `build()`. */
export interface AgentSpec {
  readonly options: AgentOptions
  readonly system: string | undefined
  readonly outputSchema: OutputSchema<unknown> | undefined
  readonly reliability: AgentReliability | undefined
  readonly tools: readonly AnyTool[]
  readonly outputFallback: OutputFallback<unknown> | undefined
  readonly costBudget: CostBudget | undefined
  /** Links added with `.use()`, after any given in `reliability({ middleware })`. */
  readonly middleware: readonly Middleware[]
  /** The session store (`sessions` of `Agent.create`, or `.sessions()`). */
  readonly sessions: SessionStore | undefined
  readonly events: EventHub
}
