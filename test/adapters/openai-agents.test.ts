import { Agent, type Model, run, setTracingDisabled } from '@openai/agents'
import { aisdk } from '@openai/agents-extensions/ai-sdk'
import { wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { isNoObjectGenerated, reliabilityMiddleware } from '../../src/integrations/ai-sdk-middleware/index.ts'
import { generated } from './support/ai-sdk-mock.ts'

// The README's recipe for the OpenAI Agents SDK: its AI SDK model adapter (`aisdk()`) over a model
// wrapped with the middleware. The Agents SDK sends the agent's `outputType` as the call's JSON
// response format, which the gate validates against.

const Refund = z.object({ orderId: z.string(), action: z.enum(['refund', 'reject']), amount: z.number() })
const invalid = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'
const valid = '{"orderId": "42", "action": "refund", "amount": 50}'

beforeAll(() => {
  // No trace export to OpenAI from a test.
  setTracingDisabled(true)
})

/**
 * `aisdk()` as the Agents SDK's `Model`: @openai/agents-extensions 0.18 declares `rawUsage` so that
 * its model misses `Model` under `exactOptionalPropertyTypes` only (this project's setting).
 */
const agentModel = (model: Parameters<typeof aisdk>[0]): Model => aisdk(model) as Model

/** A mock model answering `answers` in turn, recording every prompt it was sent. */
function scriptedModel(answers: readonly string[]) {
  const prompts: unknown[] = []
  let call = 0
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(options.prompt)
      return generated(answers[Math.min(call++, answers.length - 1)] as string)
    },
  })
  return { model, prompts }
}

describe('reliabilityMiddleware under the OpenAI Agents SDK', () => {
  it('retries an invalid final output with feedback and ends the run with the validated value', async () => {
    const { model, prompts } = scriptedModel([invalid, valid])
    const middleware = reliabilityMiddleware({ postDecide: strictOutputRules(3) })
    const retries: number[] = []
    middleware.on('retry', (e) => retries.push(e.attempt))
    const agent = new Agent({
      name: 'refunds',
      instructions: 'Decide on refunds.',
      model: agentModel(wrapLanguageModel({ model, middleware })),
      outputType: Refund,
    })

    const result = await run(agent, 'refund order #42 for $50')

    expect(result.finalOutput).toEqual({ orderId: '42', action: 'refund', amount: 50 })
    expect(prompts).toHaveLength(2)
    expect(retries).toEqual([1])
    expect(JSON.stringify(prompts[1])).toContain(`'amount': expected number, got`)
    // The feedback went to the model only: the run's history holds the question and the valid answer.
    expect(JSON.stringify(result.history)).not.toContain('expected number')
    expect(JSON.stringify(result.history)).not.toContain('USD 50')
  })

  it('fails the run with the gate give-up when the output stays invalid', async () => {
    const { model, prompts } = scriptedModel([invalid])
    const agent = new Agent({
      name: 'refunds',
      model: agentModel(wrapLanguageModel({ model, middleware: reliabilityMiddleware({ postDecide: strictOutputRules(2) }) })),
      outputType: Refund,
    })

    const error = await run(agent, 'refund order #42 for $50').catch((e: unknown) => e)

    expect(prompts).toHaveLength(2)
    // The gate's give-up reaches the caller of run() as it is: typed, and a NoObjectGeneratedError to the AI SDK.
    expect(isReliabilityFailFastError(error) && isNoObjectGenerated(error)).toBe(true)
    expect((error as Error).message).toContain(`'amount': expected number, got "USD 50"`)
  })
})
