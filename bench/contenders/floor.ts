import { Compile } from 'typebox/compile'
import { LookupArgs, Refund, USER_MESSAGE, type Scenario, type Step } from '../scenarios.ts'
import { isRateLimited } from '../support/failover.ts'
import { script } from '../support/script.ts'
import type { Contender, Runnable } from './contender.ts'

const refund = Compile(Refund)
const lookupArgs = Compile(LookupArgs)
/** Attempts of one floor run (and of the floor-with-log reference row). */
export const MAX_ATTEMPTS = 3

/** The compiled schema a floor run checks: the tool's arguments in scenario (d), the refund otherwise. */
export function floorValidator(tool: boolean): FloorValidator {
  return tool ? lookupArgs : refund
}

/** A message of the floor's own conversation: what a hand-written loop keeps and sends. */
export interface FloorMessage {
  readonly role: 'user' | 'assistant' | 'tool'
  readonly content: string
}

/**
 * The floor's model: a synchronous function of the conversation that returns the next scripted
 * answer (a final answer's text, or a tool call's arguments as JSON text) or throws the scripted
 * provider error. No Promise: the floor pays for no async layer it does not need.
 */
export type StubModel = (messages: readonly FloorMessage[]) => string

/** A stub model over a scenario's steps, with the cursor reset of every benchmarked call. */
export function stubModel(steps: readonly Step[]): { readonly model: StubModel; readonly reset: () => void } {
  const answers = script(steps, (step) => (step.kind === 'text' ? step.text : step.kind === 'tool' ? step.args : ''))
  return { model: () => answers.next(), reset: answers.reset }
}

/** The compiled TypeBox check the floor uses (`Compile(schema)`). */
export interface FloorValidator {
  Check(value: unknown): boolean
  Errors(value: unknown): Iterable<{ readonly instancePath: string; readonly message: string }>
}

/** What {@link floorCheck} returns for a rejected answer: a result, not a thrown Error. */
export const REJECTED: unique symbol = Symbol('rejected')

/**
 * One answer checked the way a hand-written loop does: `JSON.parse` in a try/catch, the compiled
 * `Check`; on a failure, ONE `Errors()` pass turned into one feedback line per error, and two
 * messages appended to the conversation (the echo of the answer, then the feedback). Returns the
 * value, or {@link REJECTED}.
 */
export function floorCheck(raw: string, validator: FloorValidator, feedbackRole: 'user' | 'tool', messages: FloorMessage[]): unknown {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (error) {
    messages.push({ role: 'assistant', content: raw }, { role: feedbackRole, content: `Invalid JSON: ${(error as Error).message}. Answer with the JSON only.` })
    return REJECTED
  }
  if (validator.Check(value)) return value
  let feedback = 'Fix these errors:'
  for (const e of validator.Errors(value)) feedback += `\n- '${e.instancePath}': ${e.message}`
  messages.push({ role: 'assistant', content: raw }, { role: feedbackRole, content: feedback })
  return REJECTED
}

/**
 * The floor: the minimal loop a user would write by hand. Call the model, then {@link floorCheck};
 * at most 3 attempts. A 429 moves to the second model. The function is `async` only because callers
 * `await` it; nothing inside awaits, and no Error is thrown per rejection.
 */
export function floorLoop(models: readonly StubModel[], tool: boolean): () => Promise<unknown> {
  const validator = floorValidator(tool)
  const feedbackRole = tool ? 'tool' : 'user'
  return async function floorRun(): Promise<unknown> {
    const messages: FloorMessage[] = [{ role: 'user', content: USER_MESSAGE }]
    let current = 0
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const model = models[current] as StubModel
      let raw: string
      try {
        raw = model(messages)
      } catch (error) {
        if (isRateLimited(error) && current + 1 < models.length) {
          current++
          continue
        }
        throw error
      }
      const value = floorCheck(raw, validator, feedbackRole, messages)
      if (value !== REJECTED) return value
    }
    throw new Error(`no valid answer after ${MAX_ATTEMPTS} attempts`)
  }
}

/** The floor contender: {@link floorLoop} over the scenario's stub models. */
export const floor: Contender = {
  name: 'floor (hand-written loop)',
  prepare(scenario: Scenario): Runnable {
    const primary = stubModel(scenario.primary)
    const secondary = stubModel(scenario.secondary ?? scenario.primary)
    const models = scenario.id === 'e' ? [primary.model, secondary.model] : [primary.model]
    const run = floorLoop(models, scenario.id === 'd')
    return {
      call: () => {
        primary.reset()
        secondary.reset()
        return run()
      },
    }
  },
}
