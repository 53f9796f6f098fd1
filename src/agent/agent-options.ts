import type { EventHub } from '../events/event-hub.ts'
import type { FallbackAnswer, ProviderEntry } from '../gate/gate-config.ts'
import type { Provider } from '../model/provider.ts'
import type { Usage } from '../model/usage.ts'
import type { ReliabilityConfig } from '../rules/reliability-config.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import type { OutputSchema } from '../validation/index.ts'

/** What `Agent.create` takes. */
export interface AgentOptions {
  readonly provider: Provider
  readonly model?: string
  /** The agent's name, used in logs and events. @default 'agent' */
  readonly name?: string
}

/** The agent's reliability options: the gate's rules and feedback options, failover and fallback. */
export interface AgentReliability extends ReliabilityConfig {
  /** Failover order; replaces the provider given to `Agent.create` when set. */
  readonly providers?: readonly (Provider | ProviderEntry)[]
  /** Called on a `fallback` decision; its answer is validated like a model answer. */
  readonly fallback?: (scope: ReliabilityScope) => FallbackAnswer | Promise<FallbackAnswer>
  /** Prices one attempt's usage in USD. */
  readonly priceUsage?: (usage: Usage, model: string | undefined, provider: string) => number
}

/** Everything the builder collected; frozen by `build()`. */
export interface AgentSpec {
  readonly options: AgentOptions
  readonly system: string | undefined
  readonly outputSchema: OutputSchema<unknown> | undefined
  readonly reliability: AgentReliability | undefined
  readonly events: EventHub
}
