import { generateText, NoObjectGeneratedError, Output } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { toAiSdkResult } from '../support/ai-sdk-result.ts'
import { script } from '../support/script.ts'
import { RefundZod } from '../support/zod-schemas.ts'
import type { Contender, Runnable, Unsupported } from './contender.ts'
import { failover } from '../support/failover.ts'

const MAX_ATTEMPTS = 3

/**
 * The Vercel AI SDK: `generateText` with `Output.object` (Zod schema) on a `MockLanguageModelV4`.
 * It has no retry on an invalid object (its `maxRetries` covers API errors, with a 2 s backoff it
 * does not let us zero, so it is set to 0) and no provider failover: those scenarios are measured
 * with the loop a user would write, and say so.
 */
export const aiSdkContender: Contender = {
  name: 'Vercel AI SDK generateText + Output.object',
  prepare(scenario: Scenario): Runnable | Unsupported {
    if (scenario.id === 'd')
      return { unsupported: 'not measured: tool-input errors go back to the model only through a multi-step tool loop, not comparable here' }
    const primaryScript = script(scenario.primary, toAiSdkResult)
    const secondaryScript = script(scenario.secondary ?? scenario.primary, toAiSdkResult)
    const model = (s: typeof primaryScript) => new MockLanguageModelV4({ doGenerate: async () => s.next() })
    const primary = model(primaryScript)
    const secondary = model(secondaryScript)
    const output = Output.object({ schema: RefundZod })
    const once = (m: MockLanguageModelV4) => async () => (await generateText({ model: m, output, prompt: USER_MESSAGE, maxRetries: 0 })).output
    // The user's own loop: the SDK has no feedback retry, so it can only ask again, blind.
    const loop = (m: MockLanguageModelV4) => async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(m)()
        } catch (error) {
          if (!NoObjectGeneratedError.isInstance(error) || attempt >= MAX_ATTEMPTS) throw error
        }
      }
    }
    const run = failover(loop(primary), loop(secondary))
    const note =
      scenario.id === 'b' || scenario.id === 'c'
        ? 'no retry on invalid output: user loop re-asks without feedback'
        : scenario.id === 'e'
          ? 'no failover: user try/catch to the second model'
          : undefined
    // The mock model records every call; clear it so memory does not grow with the sample count.
    const clear = () => {
      primary.doGenerateCalls.length = 0
      secondary.doGenerateCalls.length = 0
    }
    return {
      ...(note !== undefined ? { note } : {}),
      call: () => {
        primaryScript.reset()
        secondaryScript.reset()
        clear()
        return run()
      },
    }
  },
}
