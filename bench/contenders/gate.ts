import { Agent, createGate, strictOutputRules, tool, type ReliabilityRule } from '../../src/index.ts'
import { LookupArgs, PAYLOADS, Refund, USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { script, scriptProvider, toModelResponse } from '../support/script.ts'
import type { Contender, Runnable, Unsupported } from './contender.ts'
import { scenarioProviders } from './floor.ts'

/** Scenario (e): a rate limit moves the run to the next provider at once (no backoff). */
const failoverOnRateLimit: ReliabilityRule = {
  when: function rateLimited(scope) {
    return scope.errorKind === 'rate-limit' && scope.canSwitchProvider
  },
  then: 'retry-other',
  kind: 'failover',
  label: 'fail over on 429',
}

const POST_DECIDE = [failoverOnRateLimit, ...strictOutputRules(3)]
const noop = (): void => {}

function request() {
  return { messages: [{ role: 'user' as const, content: USER_MESSAGE }] }
}

/**
 * reliability-gate's gate alone: the same rules, attempt logs always kept; `events` attaches
 * listeners to `validation_failed` and `attempt_end` (fires on every attempt, so (a) pays for it too).
 */
export function gateContender(events: boolean): Contender {
  return {
    name: events ? 'reliability-gate: gate + events' : 'reliability-gate: gate',
    prepare(scenario: Scenario): Runnable | Unsupported {
      if (scenario.id === 'd') return { unsupported: 'n/a: the gate checks final answers; tool arguments are the Agent tool loop\'s job' }
      const { primary, secondary, reset } = scenarioProviders(scenario)
      const gate = createGate({ providers: [primary, secondary], outputSchema: Refund, postDecide: POST_DECIDE, repair: false })
      if (events) {
        gate.on('validation_failed', noop)
        gate.on('attempt_end', noop)
      }
      const req = request()
      return {
        call: async () => {
          reset()
          return (await gate.run(req)).value
        },
      }
    },
  }
}

/** The Agent (builder, session, persisted history), a fresh session per call, events on. */
export const agentContender: Contender = {
  name: 'reliability-gate: Agent + events',
  prepare(scenario: Scenario): Runnable | Unsupported {
    if (scenario.id === 'd') return agentToolScenario()
    const { primary, secondary, reset } = scenarioProviders(scenario)
    const agent = Agent.create({ provider: primary, model: 'bench', name: 'bench' })
      .outputSchema(Refund)
      .reliability({ providers: [primary, secondary], postDecide: POST_DECIDE, repair: false })
      .build()
    agent.on('validation_failed', noop)
    agent.on('attempt_end', noop)
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
 * at the valid arguments). The value compared is the tool call's final arguments.
 */
function agentToolScenario(): Runnable {
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
    .reliability({ postDecide: POST_DECIDE, repair: false })
    .build()
  agent.on('validation_failed', noop)
  agent.on('attempt_end', noop)
  return {
    note: 'tool-argument retry with feedback, then the tool runs and the model answers (3 provider calls)',
    call: async () => {
      answers.reset()
      const result = await agent.session().runDetailed(USER_MESSAGE)
      return result.functionsCalled[0]?.args
    },
  }
}
