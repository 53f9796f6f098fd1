import { createGateway } from 'ai'
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, strictOutputRules } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'
import { gatewayError, gatewaySse, gatewayText, gatewayToolCall } from './support/ai-sdk-wire.ts'
import { startLoopback, type LoopbackServer } from './support/loopback-server.ts'
import { providerFailure } from './support/provider-failure.ts'

let server: LoopbackServer
const model = () => createGateway({ baseURL: server.url, apiKey: 'test-key' })('openai/gpt-test')
const base = [{ role: 'user' as const, content: 'refund order #42 for $50' }]
const invalid = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'

beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

describe('ai-sdk adapter', () => {
  it('retries an invalid answer through the AI SDK gateway model with ephemeral feedback on the wire only', async () => {
    server.script([gatewayText(invalid), gatewayText(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({ providers: aiSdk(model()), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const request = { system: 'Output JSON.', messages: base }
    const result = await gate.run(request)
    expect(result.value).toEqual({ orderId: '42', action: 'refund', amount: 50 })
    expect(server.requests.map((r) => r.url)).toEqual(['/language-model', '/language-model'])
    expect(server.requests[0]?.headers['ai-language-model-id']).toBe('openai/gpt-test')
    const [first, second] = server.requests.map((r) => r.body)
    expect(first.prompt).toEqual([
      { role: 'system', content: 'Output JSON.' },
      { role: 'user', content: [{ type: 'text', text: 'refund order #42 for $50' }] },
    ])
    expect(first.responseFormat).toEqual({ type: 'json', schema: JSON.parse(JSON.stringify(Refund)) })
    expect(second.prompt.slice(0, 2)).toEqual(first.prompt)
    expect(second.prompt[2]).toEqual({ role: 'assistant', content: [{ type: 'text', text: invalid }] })
    expect(second.prompt[3].content[0].text).toContain(`- 'amount': expected number, got "USD 50"`)
    expect(JSON.stringify(second)).not.toContain('ephemeral')
    expect(request.messages).toHaveLength(1)
    expect(result.usage).toEqual({ inputTokens: 44, outputTokens: 20, cacheReadTokens: 16 })
  })

  it('maps tool calls, keeping unparseable input as the raw string', async () => {
    server.script([gatewayToolCall('c1', 'lookup', '{"orderId": "42"}'), gatewayToolCall('c2', 'lookup', '{"orderId": ')])
    const provider = aiSdk(model())
    const ok = await provider.complete({ messages: base, tools: [{ name: 'lookup', inputSchema: { type: 'object' } }] })
    expect(ok.toolCalls).toEqual([{ id: 'c1', name: 'lookup', args: { orderId: '42' } }])
    expect(ok.stopReason).toBe('tool_use')
    const raw = await provider.complete({ messages: base })
    expect(raw.toolCalls[0]?.args).toBe('{"orderId": ')
  })

  it('sends tool results with error output for feedback', async () => {
    server.script([gatewayText('ok')])
    server.requests.length = 0
    await aiSdk(model()).complete({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup', args: { orderId: 1 } }] },
        { role: 'tool', content: 'bad id', toolCallId: 'c1', toolName: 'lookup', isError: true },
      ],
    })
    expect(server.requests[0]?.body.prompt.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { orderId: 1 } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'error-text', value: 'bad id' } }] },
    ])
  })

  it('maps gateway errors to error kinds with status and retry-after', async () => {
    server.script([gatewayError(429, 'rate_limit_exceeded', { 'retry-after': '2' }), gatewayError(503, 'internal_server_error')])
    const provider = aiSdk(model())
    expect(await providerFailure(provider.complete({ messages: base }))).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 2000 })
    expect(await providerFailure(provider.complete({ messages: base }))).toMatchObject({ kind: 'http-5xx', status: 503 })
  })

  it('streams text parts over the gateway SSE path', async () => {
    server.script([gatewaySse(validRefundJson, { chunkSize: 7 })])
    const texts: string[] = []
    let response: any
    for await (const c of aiSdk(model()).stream({ messages: base })) {
      if (c.type === 'text') texts.push(c.text)
      else if (c.type === 'done') response = c.response
    }
    expect(texts.join('')).toBe(validRefundJson)
    expect(response.content).toBe(validRefundJson)
    expect(response.stopReason).toBe('end')
    expect(response.usage.outputTokens).toBe(Math.ceil(validRefundJson.length / 4))
  })

  it('works with the AI SDK mock language model', async () => {
    const mock = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: 'text', text: validRefundJson }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 3, text: 3, reasoning: undefined },
        },
        warnings: [],
      },
      doStream: {
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: '1' },
            { type: 'text-delta', id: '1', delta: '{"a":' },
            { type: 'text-delta', id: '1', delta: '1}' },
            { type: 'text-end', id: '1' },
            {
              type: 'finish',
              finishReason: { unified: 'stop', raw: undefined },
              usage: {
                inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: 3, text: 3, reasoning: undefined },
              },
            },
          ],
        }),
      },
    })
    const provider = aiSdk(mock)
    expect(provider.name).toBe('mock-provider')
    const response = await provider.complete({ messages: base, maxTokens: 100 })
    expect(response).toEqual({ content: validRefundJson, toolCalls: [], usage: { inputTokens: 5, outputTokens: 3 }, stopReason: 'end' })
    expect(mock.doGenerateCalls[0]?.maxOutputTokens).toBe(100)
    const texts: string[] = []
    for await (const c of provider.stream({ messages: base })) if (c.type === 'text') texts.push(c.text)
    expect(texts).toEqual(['{"a":', '1}'])
  })
})

describe('ai-sdk adapter on a stream that goes on after its finish part', () => {
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  }
  /** A model streaming one answer then `after` (more parts, or nothing and never closing); `cancelled` tells whether its stream was cancelled. */
  const modelThen = (after: 'sends a late delta' | 'stays open') => {
    let cancelled = false
    const model = new MockLanguageModelV4({
      doStream: async () =>
        ({
          stream: new ReadableStream({
            start(c) {
              c.enqueue({ type: 'stream-start', warnings: [] })
              c.enqueue({ type: 'text-start', id: 't' })
              c.enqueue({ type: 'text-delta', id: 't', delta: 'Approved.' })
              c.enqueue({ type: 'text-end', id: 't' })
              c.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage })
              if (after === 'sends a late delta') c.enqueue({ type: 'text-delta', id: 't', delta: ' LATE' })
            },
            cancel() {
              cancelled = true
            },
          }),
        }) as never,
    })
    return { model, cancelled: () => cancelled }
  }

  it.each(['sends a late delta', 'stays open'] as const)('ends the answer at the finish part when the stream %s, and cancels the rest', async (after) => {
    const { model, cancelled } = modelThen(after)
    const result = await createGate({ providers: aiSdk(model) }).stream({ messages: base }).result
    expect(result.response.content).toBe('Approved.')
    expect(cancelled()).toBe(true)
  })
})
