import type { DurablePort } from '../durable/durable-port.ts'
import type { EventHub } from '../events/event-hub.ts'
import type { OutputMode } from '../model/output-mode.ts'
import type { Provider } from '../model/provider.ts'
import type { ModelResponse } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import type { ReliabilityConfig } from '../rules/reliability-config.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import type { OutputSchema } from '../validation/index.ts'
import type { ContentGuard } from '../validation/guards/index.ts'
import type { CircuitBreaker, CircuitBreakerOptions } from '../policies/breaker/circuit-breaker.ts'
import type { SharedBudget } from '../policies/budget/shared-budget.ts'
import type { Middleware } from '../policies/middleware.ts'
import type { PricingTable } from '../policies/pricing/model-price.ts'
import type { SharedRateLimit } from '../policies/rate-limit/shared-rate-limit.ts'

/** A provider in the failover order, with the model to ask it for. */
export interface ProviderEntry {
  readonly provider: Provider
  /** Display name; defaults to `provider.name`. */
  readonly name?: string
  /**
   * Model for this provider. Which model a provider is asked for, most specific first: this
   * entry's `model`, the provider's own `model` (an adapter configured with one, e.g.
   * `anthropic({ client, model })`), the request's `model`, then the gate's (or agent's) `model`.
   */
  readonly model?: string
}

/** What the configured fallback may answer. */
export type FallbackAnswer = ModelResponse | string

/**
 * Configuration of a gate. Immutable once the gate is created.
 *
 * @example
 * createGate({ providers: [primary, backup], outputSchema: Refund, postDecide: strictOutputRules(3) })
 */
export interface GateConfig<T = unknown> extends ReliabilityConfig {
  /** One provider, or the failover order (first is used first). */
  readonly providers: Provider | readonly (Provider | ProviderEntry)[]
  /**
   * Default model name, for providers that name none themselves: a provider entry's `model` and an
   * adapter's own configured model win over it, and so does a request's `model`.
   */
  readonly model?: string
  /**
   * Schema of the final answer: TypeBox, Standard Schema, raw JSON Schema, or `{parse}`. Compiled when
   * the gate is made; requests send the gate's own frozen copy of its JSON Schema, taken then.
   */
  readonly outputSchema?: OutputSchema<T>
  /**
   * How the output schema is asked of each provider (a request's own `outputMode` wins): `'auto'`
   * the provider's native structured-output mode when the schema compiles for it without changing
   * meaning, else its JSON mode, else the schema in the prompt; `'native'` the same, with the
   * fallback reported (`output_mode_demoted`); `'json'` JSON mode with the schema in the prompt;
   * `'prompt'` the schema in the prompt only. A native answer is mapped back to the schema's own
   * shape before it is validated, and the gate validates every answer against the original schema.
   * A 400 refusing the schema (`schema-rejected`) lowers the mode of that schema for that provider,
   * once, for every later run. Absent, each adapter sends the schema as its own options say.
   * @example
   * createGate({ providers: openai({ client }), outputSchema: Refund, outputMode: 'auto' })
   */
  readonly outputMode?: OutputMode
  /**
   * Content guards on what the model writes: those with the `output` surface see the text of every
   * answer (a tool-call turn's text included) before the check or anything else reads it; those
   * with the `stream` surface screen `gate.stream`'s text deltas behind a held-back window of their
   * declared `lookback`, so nothing they match is delivered. A redaction replaces the text and the
   * redacted answer is what the output schema validates (a broken required field is a schema
   * failure, re-asked by your rules, never an invalid value accepted); `retry-with-feedback`
   * re-asks with the guard's feedback as the ephemeral tail; `block` fails fast with kind
   * `guard-blocked`, `escalate` with `guard-escalated`. A guard that throws, rejects or never
   * settles within its `timeoutMs` (and the attempt's deadline) fails closed unless made
   * `onError: 'open'`. Other surfaces belong to the hosts (the Agent's `contentGuards`).
   * @example
   * createGate({ providers, outputSchema: Reply, contentGuards: [piiGuard({ surfaces: ['output', 'stream'] })] })
   */
  readonly contentGuards?: readonly ContentGuard[]
  /**
   * A durable-execution port for every run of this gate (a gate made inside one workflow run; a
   * run's own `durable` option wins): each whole attempt is one journaled step named
   * `attempt:<turn>:<attempt>`, so a resumed run does not call, pay or count again for an attempt that
   * finished; waits between attempts are durable sleeps, the run's deadline is anchored to a journaled
   * start, and a replay that differs from the journal fails fast (`durable-journal`).
   * @example
   * createGate({ providers, outputSchema: Refund, postDecide: strictOutputRules(3), durable: restatePort(ctx) })
   */
  readonly durable?: DurablePort
  /** Called on a `fallback` decision; its answer is validated like a model answer. */
  readonly fallback?: (scope: ReliabilityScope) => FallbackAnswer | Promise<FallbackAnswer>
  /**
   * Prices one attempt's usage in USD. Wins over `pricing` when both are given. An answer that is
   * not a finite, non-negative number (or a throw) leaves the attempt unpriced: 0 in `costUsd`, and a
   * `cost_unknown` event. A promise of a price is awaited, within the attempt's deadline.
   */
  readonly priceUsage?: (usage: Usage, model: string | undefined, provider: string) => number | PromiseLike<number>
  /**
   * Prices per model in USD per million tokens; sugar for `priceUsage: pricingTable(pricing)`.
   * An attempt of an unknown model counts as 0 in `costUsd` and is reported as `cost_unknown`.
   */
  readonly pricing?: PricingTable
  /**
   * A circuit breaker per provider: options (state in a private in-memory store unless `store` is
   * given), a ready `circuitBreaker(...)` to share, or `false` for none. An open breaker ends an
   * attempt at once with kind `circuit-open`, without calling the provider.
   * @default no breaker
   */
  readonly breaker?: CircuitBreakerOptions | CircuitBreaker | false
  /**
   * A budget shared across runs and processes, never overspent: each attempt reserves what it may
   * cost before the provider is called and commits its real cost after (see `sharedBudget`).
   */
  readonly budget?: SharedBudget
  /**
   * Calls per window per provider, shared across runs and processes (`sharedRateLimit(...)`). A full
   * window ends the attempt at once with kind `rate-limit` and `retryAfterMs` = time to the window's
   * end, without calling the provider: `retryTransient()` waits it out, `failoverRule()` switches.
   * @default no rate limit
   */
  readonly rateLimit?: SharedRateLimit
  /**
   * Your links of the attempt chain, outermost first. They run after the built-in policies (rate
   * limit, breaker, budget, deadline) and before the provider call; what they return is metered and
   * validated like any provider answer.
   * @example
   * createGate({ providers, middleware: [redactPii, cacheByBaseRequest] })
   */
  readonly middleware?: readonly Middleware[]
  /** Event hub to emit on (the agent shares its own); a private one by default. @internal */
  readonly events?: EventHub
  /** Clock in ms, for tests. @default performance.now */
  readonly now?: () => number
}
