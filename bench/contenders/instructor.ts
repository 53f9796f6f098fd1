import Instructor from '@instructor-ai/instructor'
import { USER_MESSAGE, type Scenario, type Step } from '../scenarios.ts'
import { script } from '../support/script.ts'
import { RefundZod3 } from '../support/zod-schemas.ts'
import type { Contender, Runnable, Unsupported } from './contender.ts'
import { failover } from '../support/failover.ts'

function toCompletion(step: Step) {
  return {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 0,
    model: 'bench',
    choices: [
      { index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: step.kind === 'text' ? step.text : '', refusal: null } },
    ],
    usage: { prompt_tokens: 20, completion_tokens: 20, total_tokens: 40 },
  }
}

/** A fake OpenAI-shaped client: instructor accepts any object with `chat.completions.create`. */
function fakeClient(answers: ReturnType<typeof script<ReturnType<typeof toCompletion>>>) {
  return { baseURL: 'http://bench.invalid/v1', chat: { completions: { create: async () => answers.next() } } }
}

type CreateFn = (params: unknown) => Promise<Record<string, unknown>>

/**
 * instructor-js in JSON mode with `max_retries: 2` (3 attempts). `retryAllErrors` is on: its retry
 * only recognises errors of the `zod` it imports (Zod 4 here), while its feedback formatter needs
 * Zod 3 objects, so the schema goes through `zod/v3`. Malformed JSON is retried, but without feedback.
 */
export const instructorContender: Contender = {
  name: 'instructor-js (max_retries)',
  prepare(scenario: Scenario): Runnable | Unsupported {
    if (scenario.id === 'd') return { unsupported: 'cannot: no tool-call loop (tools mode is only a way to get structured output)' }
    const primaryScript = script(scenario.primary, toCompletion)
    const secondaryScript = script(scenario.secondary ?? scenario.primary, toCompletion)
    const client = (s: typeof primaryScript) => {
      const instructor = Instructor({ client: fakeClient(s) as never, mode: 'JSON', retryAllErrors: true, logger: () => {} })
      return instructor.chat.completions.create as unknown as CreateFn
    }
    const primary = client(primaryScript)
    const secondary = client(secondaryScript)
    const params = {
      messages: [{ role: 'user', content: USER_MESSAGE }],
      model: 'bench',
      response_model: { schema: RefundZod3, name: 'Refund' },
      max_retries: 2,
    }
    const once = (create: CreateFn) => async () => {
      const { _meta, ...value } = await create(params)
      return value
    }
    const run = failover(once(primary), once(secondary))
    const note =
      scenario.id === 'b'
        ? 'retried blind (retryAllErrors): no feedback for a parse error'
        : scenario.id === 'c'
          ? 'schema not strict (instructor adds `_meta` before validating)'
          : scenario.id === 'e'
            ? 'no failover: user try/catch to a second client'
            : 'schema not strict (instructor adds `_meta` before validating)'
    return {
      ...(note !== undefined ? { note } : {}),
      call: () => {
        primaryScript.reset()
        secondaryScript.reset()
        return run()
      },
    }
  },
}
