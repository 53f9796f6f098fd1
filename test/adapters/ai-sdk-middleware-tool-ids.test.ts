import { generateText, isStepCount, jsonSchema, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}
const calls = (...inputs: [id: string, input: string][]) => ({
  content: inputs.map(([toolCallId, input]) => ({ type: 'tool-call' as const, toolCallId, toolName: 'refund', input })),
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
})
const done = { content: [{ type: 'text' as const, text: 'Done.' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] }
const Refund = jsonSchema<{ order: string }>({ type: 'object', properties: { order: { type: 'string' } }, required: ['order'] })

/** Runs `answers` through the middleware; returns the arguments `refund` ran on, in order. */
async function refunds(answers: readonly object[]): Promise<unknown[]> {
  const ran: unknown[] = []
  const refund = tool({ description: 'Refund an order', inputSchema: Refund, execute: async (args) => (ran.push(args), 'refunded') })
  const model = wrapLanguageModel({ model: new MockLanguageModelV4({ doGenerate: [...answers] as never }), middleware: reliabilityMiddleware() })
  await generateText({ model, tools: { refund }, stopWhen: isStepCount(3), prompt: 'refund both', maxRetries: 0 })
  return ran
}

describe('AI SDK reliabilityMiddleware: an answer that repeats a tool-call id', () => {
  it('runs each call on its own arguments, never the second twice', async () => {
    expect(await refunds([calls(['c1', '{"order":"A"}'], ['c1', '{"order":"B"}']), done])).toEqual([{ order: 'A' }, { order: 'B' }])
  })

  it('runs a retried call on its fixed arguments, and the other on its own', async () => {
    const fixed = calls(['r1', '{"order":"A"}'])
    expect(await refunds([calls(['c1', '{"order":1}'], ['c1', '{"order":"B"}']), fixed, done])).toEqual([{ order: 'A' }, { order: 'B' }])
  })

  it('runs a retried call whose id the model left empty on its fixed arguments', async () => {
    const fixed = calls(['r1', '{"order":"A"}'])
    expect(await refunds([calls(['', '{"order":1}']), fixed, done])).toEqual([{ order: 'A' }])
  })
})
