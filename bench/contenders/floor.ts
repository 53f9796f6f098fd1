import { Compile } from 'typebox/compile'
import type { Message, ModelResponse, Provider } from '../../src/index.ts'
import { LookupArgs, Refund, USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { script, scriptProvider, toModelResponse } from '../support/script.ts'
import type { Contender, Runnable } from './contender.ts'

const refund = Compile(Refund)
const lookupArgs = Compile(LookupArgs)
const MAX_ATTEMPTS = 3

interface TypeBoxErrorLike {
  readonly instancePath: string
  readonly message: string
}

/**
 * One attempt of the hand-written loop: call, `JSON.parse`, the compiled TypeBox `Check`, and on a
 * rejection TypeBox's error listing turned into one feedback line per error. Throws {@link Rejected}
 * with the feedback, which the loop (or a cockatiel policy) turns into a retry.
 */
export class Rejected extends Error {}

/** Builds a single attempt over a provider: the unit both the floor's loop and cockatiel wrap. */
export function floorAttempt(provider: Provider, toolName: string | undefined): { attempt: () => Promise<unknown>; reset: () => void } {
  const base: readonly Message[] = [{ role: 'user', content: USER_MESSAGE }]
  let tail: readonly Message[] = []
  const reject = (previous: string, feedback: string): never => {
    tail = [
      { role: 'assistant', content: previous },
      { role: 'user', content: feedback },
    ]
    throw new Rejected(feedback)
  }
  return {
    reset: () => {
      tail = []
    },
    attempt: async () => {
      const response: ModelResponse = await provider.complete({ messages: tail.length === 0 ? base : base.concat(tail) })
      if (toolName !== undefined) {
        const call = response.toolCalls.find((c) => c.name === toolName)
        if (call === undefined) return reject(response.content, `call ${toolName}`)
        if (lookupArgs.Check(call.args)) return call.args
        return reject(JSON.stringify(call.args), feedbackOf(lookupArgs.Errors(call.args) as unknown as TypeBoxErrorLike[]))
      }
      let value: unknown
      try {
        value = JSON.parse(response.content)
      } catch (error) {
        return reject(response.content, `not valid JSON: ${(error as Error).message}`)
      }
      if (refund.Check(value)) return value
      return reject(response.content, feedbackOf(refund.Errors(value) as unknown as TypeBoxErrorLike[]))
    },
  }
}

function feedbackOf(errors: readonly TypeBoxErrorLike[]): string {
  return errors.map((e) => `- '${e.instancePath}': ${e.message}`).join('\n')
}

/** Scenario (e) for the hand-written baselines: the primary fails with a 429, so ask the secondary. */
export function failover(primary: () => Promise<unknown>, secondary: () => Promise<unknown>): () => Promise<unknown> {
  return async () => {
    try {
      return await primary()
    } catch (error) {
      if ((error as { status?: number }).status === 429) return secondary()
      throw error
    }
  }
}

/** The providers of a scenario, with their scripts. */
export function scenarioProviders(scenario: Scenario) {
  const primaryScript = script(scenario.primary, toModelResponse)
  const secondaryScript = script(scenario.secondary ?? scenario.primary, toModelResponse)
  return {
    primary: scriptProvider('primary', primaryScript),
    secondary: scriptProvider('secondary', secondaryScript),
    reset: () => {
      primaryScript.reset()
      secondaryScript.reset()
    },
  }
}

/** The floor: a hand-written loop with the same compiled TypeBox validator (parse, check, retry). */
export const floor: Contender = {
  name: 'floor (hand-written loop)',
  prepare(scenario): Runnable {
    const { primary, secondary, reset } = scenarioProviders(scenario)
    const toolName = scenario.id === 'd' ? 'lookup_order' : undefined
    const first = floorAttempt(primary, toolName)
    const second = floorAttempt(secondary, toolName)
    const loop = (unit: ReturnType<typeof floorAttempt>) => async (): Promise<unknown> => {
      unit.reset()
      for (let attempt = 1; ; attempt++) {
        try {
          return await unit.attempt()
        } catch (error) {
          if (!(error instanceof Rejected) || attempt >= MAX_ATTEMPTS) throw error
        }
      }
    }
    const run = failover(loop(first), loop(second))
    return {
      call: () => {
        reset()
        return run()
      },
    }
  },
}
