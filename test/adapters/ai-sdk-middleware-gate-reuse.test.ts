import { APICallError, generateText, jsonSchema, Output, wrapLanguageModel } from 'ai'
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

  it('remembers, per model, a schema the model refused: later calls start in the lower mode and pay no second refusal', async () => {
    const refusal = () =>
      new APICallError({
        message: "Invalid schema for response_format 'refund': bad",
        url: 'https://api.example/v1/chat/completions',
        requestBodyValues: {},
        statusCode: 400,
        responseBody: JSON.stringify({
          error: { message: "Invalid schema for response_format 'refund'", type: 'invalid_request_error', param: 'response_format' },
        }),
      })
    /** A model that refuses any call carrying the schema on the wire (JSON mode with a schema). */
    const refusing = (provider: string) => {
      const calls = { n: 0 }
      const model = new MockLanguageModelV4({
        provider,
        doGenerate: async (options) => {
          calls.n++
          if (options.responseFormat?.type === 'json' && options.responseFormat.schema !== undefined) throw refusal()
          return generated(validRefundJson)
        },
      })
      return { model, calls }
    }
    const middleware = reliabilityMiddleware({ outputSchema: Refund, outputMode: 'native' })
    const demoted: string[] = []
    middleware.on('output_mode_demoted', (e) => demoted.push(e.provider))
    const one = refusing('openai.chat')
    const two = refusing('openai.responses')
    const ask = (m: typeof one) => generateText({ model: wrapLanguageModel({ model: m.model, middleware }), prompt: 'refund order #42', maxRetries: 0 })
    for (let i = 0; i < 3; i++) await ask(one)
    // One refused call and its retry, then one call each: the lowered mode outlives the call.
    expect(one.calls.n).toBe(4)
    // Another model of the same middleware keeps its own mode: it pays its own refusal once.
    await ask(two)
    await ask(two)
    expect(two.calls.n).toBe(3)
    expect(demoted).toEqual(['openai.chat', 'openai.responses'])
  })
})
