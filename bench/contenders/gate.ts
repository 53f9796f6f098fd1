import {
  Agent,
  createGate,
  failoverRule,
  strictOutputRules,
  tool,
  type AgentReliability,
  type GateResult,
  type Provider,
  type ReliabilityRule,
} from '../../src/index.ts'
import { LookupArgs, PAYLOADS, Refund, USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { script, scriptProvider, toModelResponse } from '../support/script.ts'
import { AGENT_PLAIN, GATE_NO_LISTENER, GATE_PLAIN } from '../targets.ts'
import type { Contender, Runnable, Unsupported } from './contender.ts'

const noop = (): void => {}

/**
 * The library at its defaults (repair on, attempt logs kept, `latest` feedback) with
 * `strictOutputRules(3)`; scenario (e) adds `failoverRule()` in front, the one rule it needs.
 */
function postDecide(scenario: Scenario): readonly ReliabilityRule[] {
  return scenario.id === 'e' ? [failoverRule(), ...strictOutputRules(3)] : strictOutputRules(3)
}

/**
 * The scenario's providers: the primary alone, or primary and secondary for the failover of (e);
 * `count: 2` gives the secondary on every scenario (the production rows, so failover has somewhere to go).
 */
export function scenarioProviders(scenario: Scenario, count: 1 | 2 = scenario.id === 'e' ? 2 : 1): { providers: readonly Provider[]; reset: () => void } {
  const primaryScript = script(scenario.primary, toModelResponse)
  const secondaryScript = script(scenario.secondary ?? scenario.primary, toModelResponse)
  const primary = scriptProvider('primary', primaryScript)
  const secondary = scriptProvider('secondary', secondaryScript)
  return {
    providers: count === 2 ? [primary, secondary] : [primary],
    reset: () => {
      primaryScript.reset()
      secondaryScript.reset()
    },
  }
}

/**
 * reliability-gate's gate alone, plain (`createGate` + `strictOutputRules(3)`); `events` attaches a
 * `validation_failed` listener, as a user counting failures would.
 */
export function gateContender(events: boolean): Contender {
  return {
    name: events ? GATE_PLAIN : GATE_NO_LISTENER,
    prepare(scenario: Scenario): Runnable | Unsupported {
      if (scenario.id === 'd') return { unsupported: "n/a: the gate checks final answers; tool arguments are the Agent tool loop's job" }
      const { providers, reset } = scenarioProviders(scenario)
      const gate = createGate({ providers, outputSchema: Refund, postDecide: postDecide(scenario) })
      if (events) gate.on('validation_failed', noop)
      const request = { messages: [{ role: 'user' as const, content: USER_MESSAGE }] }
      return {
        // What a user writes: `const { value } = await gate.run(request)`, no wrapper per call.
        call: () => {
          reset()
          return gate.run(request)
        },
        unwrap: (result) => (result as GateResult<unknown>).value,
      }
    },
  }
}

/**
 * `Agent.runTyped`, plain (builder, session, persisted history) with a `validation_failed` listener;
 * a fresh session per call, so the history does not grow with the sample count.
 */
export const agentContender: Contender = {
  name: AGENT_PLAIN,
  prepare(scenario: Scenario): Runnable | Unsupported {
    if (scenario.id === 'd') return agentToolScenario()
    const { providers, reset } = scenarioProviders(scenario)
    const agent = Agent.create({ provider: providers[0] as Provider, model: 'bench', name: 'bench' })
      .outputSchema(Refund)
      .reliability({ ...(providers.length > 1 ? { providers } : {}), postDecide: postDecide(scenario) })
      .build()
    agent.on('validation_failed', noop)
    return {
      call: () => {
        reset()
        return agent.session().runTyped(USER_MESSAGE)
      },
    }
  },
}

/**
 * Scenario (d) on the Agent's tool loop: a bad argument, the tool-argument retry, the good call, the
 * tool's execution and the model's final answer (one more provider call than the floor, which stops
 * at the valid arguments). The value compared is the tool call's final arguments. `reliability` is
 * the agent's configuration (plain: `strictOutputRules(3)`); `attach` runs on the built agent.
 */
export function agentToolScenario(
  reliability: AgentReliability = { postDecide: strictOutputRules(3) },
  attach: (agent: Agent<unknown>) => unknown = noop,
): Runnable {
  const answers = script(
    [
      { kind: 'tool', name: 'lookup_order', args: PAYLOADS.badToolArgs },
      { kind: 'tool', name: 'lookup_order', args: PAYLOADS.goodToolArgs },
      { kind: 'text', text: PAYLOADS.valid },
    ],
    toModelResponse,
  )
  const lookupOrder = tool({ name: 'lookup_order', description: 'Looks an order up.', input: LookupArgs, execute: () => 'found' })
  const agent = Agent.create({ provider: scriptProvider('primary', answers), model: 'bench', name: 'bench' })
    .tool(lookupOrder)
    .outputSchema(Refund)
    .reliability(reliability)
    .build()
  agent.on('validation_failed', noop)
  attach(agent)
  return {
    note: 'Agent.runDetailed: tool-argument retry with feedback, then the tool runs and the model answers (3 provider calls)',
    call: async () => {
      answers.reset()
      const result = await agent.session().runDetailed(USER_MESSAGE)
      return result.functionsCalled[0]?.args
    },
  }
}
