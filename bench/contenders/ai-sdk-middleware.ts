import { generateText, Output, wrapLanguageModel, type LanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { Refund, USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { toAiSdkResult } from '../support/ai-sdk-result.ts'
import { script } from '../support/script.ts'
import { RefundZod } from '../support/zod-schemas.ts'
import type { Contender, Runnable, Unsupported } from './contender.ts'

/**
 * The AI SDK (`generateText` + `Output.object`, the same Zod schema and mock model as the plain AI SDK
 * row) with our `reliabilityMiddleware` in `wrapLanguageModel`: the middleware validates against the
 * shared TypeBox schema and retries with feedback inside one `generateText` call. The failover rule
 * of the gate rows is left out: a middleware wraps one model, so it could never switch provider;
 * scenario (e) is the user's try/catch to a second wrapped model, as for the plain AI SDK.
 */
export const aiSdkMiddlewareContender: Contender = {
  name: 'Vercel AI SDK + reliability-gate middleware',
  prepare(scenario: Scenario): Runnable | Unsupported {
    if (scenario.id === 'd')
      return { unsupported: "n/a: the middleware checks final answers; tool inputs go back to the model through the AI SDK's multi-step tool loop" }
    const primaryScript = script(scenario.primary, toAiSdkResult)
    const secondaryScript = script(scenario.secondary ?? scenario.primary, toAiSdkResult)
    const mock = (s: typeof primaryScript) => new MockLanguageModelV4({ doGenerate: async () => s.next() })
    const primaryMock = mock(primaryScript)
    const secondaryMock = mock(secondaryScript)
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3) })
    const primary = wrapLanguageModel({ model: primaryMock, middleware })
    const secondary = wrapLanguageModel({ model: secondaryMock, middleware })
    const output = Output.object({ schema: RefundZod })
    const once = async (model: LanguageModel) => (await generateText({ model, output, prompt: USER_MESSAGE, maxRetries: 0 })).output
    // The gate fails fast with kind `rate-limit` (no second provider inside one wrapped model).
    const run = async () => {
      try {
        return await once(primary)
      } catch (error) {
        if (isReliabilityFailFastError(error) && error.kind === 'rate-limit') return once(secondary)
        throw error
      }
    }
    return {
      ...(scenario.id === 'e' ? { note: 'no failover inside one wrapped model: user try/catch to the second wrapped model' } : {}),
      call: () => {
        primaryScript.reset()
        secondaryScript.reset()
        // The mock model records every call; clear it so memory does not grow with the sample count.
        primaryMock.doGenerateCalls.length = 0
        secondaryMock.doGenerateCalls.length = 0
        return run()
      },
    }
  },
}
