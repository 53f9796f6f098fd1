import { createGateway, generateText, jsonSchema, NoObjectGeneratedError, Output, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai-v6'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, strictOutputRules } from '../../src/index.ts'
import { aiSdk, reliabilityMiddleware, type AiSdkLanguageModel } from '../../src/integrations/ai-sdk.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { gatewaySse, gatewayText, gatewayToolCall } from './support/ai-sdk-wire.ts'
import { startLoopback, type LoopbackServer } from './support/loopback-server.ts'

// The oldest supported major of the AI SDK: ai 6, whose models speak specification v3.
let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const invalid = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'
const model = () => createGateway({ baseURL: server.url, apiKey: 'k' })('openai/gpt-test')
const asModel = (m: unknown) => m as AiSdkLanguageModel
const refundSchema = JSON.parse(JSON.stringify(Refund)) as Record<string, unknown>

describe('ai-sdk adapter over ai 6 (specification v3)', () => {
  it('retries an invalid answer with ephemeral feedback', async () => {
    server.script([gatewayText(invalid), gatewayText(validRefundJson)])
    server.requests.length = 0
    const result = await createGate({ providers: aiSdk(asModel(model())), outputSchema: Refund, postDecide: strictOutputRules(3) }).run({
      messages: [{ role: 'user', content: 'refund #42' }],
    })
    expect(result.value).toEqual(validRefund)
    expect(server.requests[1]?.body.prompt.at(-1).content[0].text).toContain(`- 'amount': expected number, got "USD 50"`)
    expect(result.attempts.map((a) => a.model)).toEqual(['openai/gpt-test', 'openai/gpt-test'])
  })

  it('maps tool calls and streams text', async () => {
    server.script([gatewayToolCall('c1', 'lookup', '{"orderId": "42"}'), gatewaySse(validRefundJson)])
    const provider = aiSdk(asModel(model()))
    expect((await provider.complete({ messages: [{ role: 'user', content: 'go' }] })).toolCalls).toEqual([
      { id: 'c1', name: 'lookup', args: { orderId: '42' } },
    ])
    let text = ''
    for await (const c of provider.stream({ messages: [{ role: 'user', content: 'go' }] })) if (c.type === 'text') text += c.text
    expect(text).toBe(validRefundJson)
  })
})

describe('reliabilityMiddleware in ai 6 (no cast: its type fits ai 6 and ai 7)', () => {
  it('retries inside generateText, validating against Output.object', async () => {
    server.script([gatewayText(invalid), gatewayText(validRefundJson)])
    server.requests.length = 0
    const middleware = reliabilityMiddleware({ postDecide: strictOutputRules(3) })
    const result = await generateText({
      model: wrapLanguageModel({ model: model(), middleware }),
      output: Output.object({ schema: jsonSchema(refundSchema) }),
      prompt: 'refund #42',
      maxRetries: 0,
    })
    expect(result.output).toEqual(validRefund)
    expect(server.requests).toHaveLength(2)
    // The feedback went to the model only: the messages generateText returns hold the valid answer.
    expect(JSON.stringify(result.response.messages)).not.toContain('expected number')
    expect(JSON.stringify(result.response.messages)).toContain('"amount\\":50')
  })

  it('buffers streamText', async () => {
    server.script([gatewaySse(invalid), gatewaySse(validRefundJson)])
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = streamText({ model: wrapLanguageModel({ model: model(), middleware }), prompt: 'refund #42', maxRetries: 0 })
    expect(await result.text).toBe(validRefundJson)
  })

  it('retries invalid tool arguments, and its give-up is a NoObjectGeneratedError of ai 6', async () => {
    const executed: unknown[] = []
    const lookup = tool({
      description: 'find an order',
      inputSchema: jsonSchema<{ orderId: string }>({ type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] }),
      execute: async (input) => {
        executed.push(input)
        return 'delivered'
      },
    })
    const run = () =>
      generateText({
        model: wrapLanguageModel({ model: model(), middleware: reliabilityMiddleware() }),
        tools: { lookup },
        stopWhen: stepCountIs(3),
        prompt: 'where is 42?',
        maxRetries: 0,
      })
    server.script([gatewayToolCall('c1', 'lookup', '{"orderId": 42}'), gatewayToolCall('c2', 'lookup', '{"orderId": "42"}'), gatewayText('delivered')])
    expect((await run()).text).toBe('delivered')
    expect(executed).toEqual([{ orderId: '42' }])
    server.script([gatewayToolCall('c1', 'lookup', '{"orderId": 1}')])
    const error = await run().catch((e: unknown) => e)
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true)
  })
})
