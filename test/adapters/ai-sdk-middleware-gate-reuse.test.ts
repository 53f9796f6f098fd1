import { generateText, jsonSchema, Output, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { strictOutputRules } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk-middleware/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { generated } from './support/ai-sdk-mock.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

describe('reliabilityMiddleware gates', () => {
  it('settles its configuration once per output schema: an unpriced model is warned about once across calls, not once per call', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3), priceUsage: () => Number.NaN })
    const model = wrapLanguageModel({ model: new MockLanguageModelV4({ doGenerate: async () => generated(validRefundJson) }), middleware })
    const output = Output.object({ schema: jsonSchema(JSON.parse(JSON.stringify(Refund)) as Record<string, unknown>) })
    for (let i = 0; i < 3; i++) expect((await generateText({ model, output, prompt: 'refund order #42', maxRetries: 0 })).output).toEqual(validRefund)
    const costWarnings = warn.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === 'RELIABILITY_GATE_COST_UNKNOWN')
    expect(costWarnings).toHaveLength(1)
  })

  it('keeps each call on its own model: two wrapped models of one middleware answer for themselves', async () => {
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3) })
    const other = { ...validRefund, amount: 7 }
    const first = wrapLanguageModel({ model: new MockLanguageModelV4({ provider: 'one', doGenerate: async () => generated(validRefundJson) }), middleware })
    const second = wrapLanguageModel({
      model: new MockLanguageModelV4({ provider: 'two', doGenerate: async () => generated(JSON.stringify(other)) }),
      middleware,
    })
    const output = Output.object({ schema: jsonSchema(JSON.parse(JSON.stringify(Refund)) as Record<string, unknown>) })
    const providers: string[] = []
    middleware.events$.subscribe((e) => {
      if (e.type === 'run_end') providers.push(e.provider)
    })
    const [a, b] = await Promise.all([
      generateText({ model: first, output, prompt: 'a', maxRetries: 0 }),
      generateText({ model: second, output, prompt: 'b', maxRetries: 0 }),
    ])
    expect([a.output, b.output]).toEqual([validRefund, other])
    expect(providers.sort()).toEqual(['one', 'two'])
  })
})
