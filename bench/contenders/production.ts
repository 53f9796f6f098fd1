import {
  Agent,
  circuitBreaker,
  createGate,
  failoverRule,
  memoryStore,
  retryTransient,
  sharedBudget,
  strictOutputRules,
  type AgentReliability,
  type Gate,
  type GateResult,
  type Provider,
  type StateStore,
} from '../../src/index.ts'
import { instrument } from '../../src/otel/index.ts'
import { Refund, USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { AGENT_PRODUCTION, GATE_PRODUCTION } from '../targets.ts'
import type { Contender, Runnable, Unsupported } from './contender.ts'
import { agentToolScenario, scenarioProviders } from './gate.ts'

const noop = (): void => {}

/** The model every production row asks for, priced by {@link PRODUCTION_PRICING}. */
export const PRODUCTION_MODEL = 'bench'

/** A price table with the model in it, so every attempt is priced (USD per million tokens; example prices). */
export const PRODUCTION_PRICING = { [PRODUCTION_MODEL]: { input: 2.5, output: 10, cacheRead: 1.25 } } as const

/**
 * The shared budget: far more than any bench run can spend (an attempt costs $0.00025 and reserves
 * about $0.04), so it never trips, but every attempt still reserves and commits against it.
 */
export const PRODUCTION_BUDGET_USD = 1e9

/**
 * The production configuration of issue 19, as a service runs it: `retryTransient()`,
 * `failoverRule()` and `strictOutputRules(2)`, a price table, `timeoutMs: 30_000`, and a circuit
 * breaker and a shared budget on one `memoryStore()` (given as `store`, so both go to the store on
 * every attempt, as they would with a store shared across gates). The providers come with the row.
 */
export function productionReliability(store: StateStore = memoryStore()): AgentReliability {
  return {
    pricing: PRODUCTION_PRICING,
    timeoutMs: 30_000,
    breaker: circuitBreaker({ store, failureThreshold: 5, cooldownMs: 30_000 }),
    budget: sharedBudget({ store, key: 'bench:budget', usd: PRODUCTION_BUDGET_USD }),
    postDecide: [retryTransient(), failoverRule(), ...strictOutputRules(2)],
  }
}

/**
 * The production gate: {@link productionReliability} on `providers` (two, so failover has somewhere
 * to go), a `validation_failed` listener, and `instrument(gate)` through the global OpenTelemetry API
 * (no SDK registered in the bench: the API's no-op tracer and meter). Returns the gate and the
 * instrument's stop function.
 */
export function productionGate(providers: readonly Provider[], store?: StateStore): { readonly gate: Gate<unknown>; readonly stop: () => void } {
  const gate = createGate({ providers, model: PRODUCTION_MODEL, outputSchema: Refund, ...productionReliability(store) })
  gate.on('validation_failed', noop)
  return { gate, stop: instrument(gate) }
}

/** The agent with the production configuration, its listener and `instrument(agent)`, as {@link productionGate}. */
export function productionAgent(providers: readonly Provider[], store?: StateStore): { readonly agent: Agent<unknown>; readonly stop: () => void } {
  const agent = Agent.create({ provider: providers[0] as Provider, model: PRODUCTION_MODEL, name: 'bench' })
    .outputSchema(Refund)
    .reliability({ providers, ...productionReliability(store) })
    .build()
  agent.on('validation_failed', noop)
  return { agent, stop: instrument(agent) }
}

/**
 * Scenario (e) is not timed for the production rows: `retryTransient()` comes before
 * `failoverRule()` (retry a provider a few times before leaving it) and waits its default backoff
 * (250 ms, then 500 ms, then 1 s) on the 429 before the switch, so the time would be the sleep.
 */
const NO_E = 'not timed: retryTransient() waits its default backoff (from 250 ms) three times on the 429 before failoverRule() switches'

/** reliability-gate's gate with the production configuration. */
export const gateProductionContender: Contender = {
  name: GATE_PRODUCTION,
  prepare(scenario: Scenario): Runnable | Unsupported {
    if (scenario.id === 'd') return { unsupported: "n/a: the gate checks final answers; tool arguments are the Agent tool loop's job" }
    if (scenario.id === 'e') return { unsupported: NO_E }
    const { providers, reset } = scenarioProviders(scenario, 2)
    const { gate } = productionGate(providers)
    const request = { messages: [{ role: 'user' as const, content: USER_MESSAGE }] }
    return {
      call: () => {
        reset()
        return gate.run(request)
      },
      unwrap: (result) => (result as GateResult<unknown>).value,
    }
  },
}

/**
 * `Agent.runTyped` with the production configuration; a fresh session per call, as the plain Agent
 * row. Scenario (d) is the plain Agent row's tool loop with the production configuration.
 */
export const agentProductionContender: Contender = {
  name: AGENT_PRODUCTION,
  prepare(scenario: Scenario): Runnable | Unsupported {
    if (scenario.id === 'd') return agentToolScenario(productionReliability(), (agent) => instrument(agent))
    if (scenario.id === 'e') return { unsupported: NO_E }
    const { providers, reset } = scenarioProviders(scenario, 2)
    const { agent } = productionAgent(providers)
    return {
      call: () => {
        reset()
        return agent.session().runTyped(USER_MESSAGE)
      },
    }
  },
}
