import Anthropic from '@anthropic-ai/sdk'
import AnthropicV0 from 'anthropic-sdk-v0'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, createGate, strictOutputRules } from '../../src/index.ts'
import { anthropic, type AnthropicMessagesClient } from '../../src/providers/anthropic/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { anthropicError, anthropicMessage, anthropicSse, anthropicSseOverloaded, anthropicText, anthropicToolSse } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer } from './support/loopback-server.ts'
import { providerFailure } from './support/provider-failure.ts'

let server: LoopbackServer
// The adapter's suite runs against the newest and the oldest supported version of the SDK.
const versions = [
  { version: '1.x', Client: Anthropic as unknown as new (options: object) => AnthropicMessagesClient },
  { version: '0.40', Client: AnthropicV0 as unknown as new (options: object) => AnthropicMessagesClient },
]
const base = [{ role: 'user' as const, content: 'refund order #42 for $50' }]
const invalid = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'

beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const breakpoints = (body: any): string[] =>
  body.messages.flatMap((m: any, i: number) =>
    m.content.flatMap((b: any, j: number) => (b.cache_control !== undefined ? [`${i}.${j}:${JSON.stringify(b.cache_control)}`] : [])),
  )

describe.each(versions)('anthropic adapter (@anthropic-ai/sdk $version)', ({ Client }) => {
  const client = (timeout = 5_000) => new Client({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0, timeout })

  it('ends a stream at message_stop when the server keeps the response open after it', async () => {
    const whole = anthropicSse(validRefundJson)
    server.script([{ kind: 'sse', frames: whole.kind === 'sse' ? whole.frames : [], open: true }])
    const gate = createGate({ providers: anthropic({ client: client() }), model: 'claude-test', outputSchema: Refund })
    const result = await gate.stream({ messages: [{ role: 'user', content: 'refund order #42' }] }, { mode: 'buffer' }).result
    expect(result.response.content).toBe(validRefundJson)
  })

  it('retries with ephemeral feedback after the cache breakpoint, and the agent history keeps none of it', async () => {
    server.script([anthropicText(invalid), anthropicText(validRefundJson)])
    server.requests.length = 0
    const agent = Agent.create({ provider: anthropic({ client: client() }), model: 'claude-test', name: 'billing' })
      .system('You decide refunds. Output JSON.')
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const failed: number[] = []
    agent.on('validation_failed', (e) => failed.push(e.attempt))
    const value = await agent.runTyped({ message: 'refund order #42 for $50' })

    expect(value).toEqual({ orderId: '42', action: 'refund', amount: 50 })
    expect(failed).toEqual([1])
    const [first, second] = server.requests.map((r) => r.body)
    expect(first.system).toBe('You decide refunds. Output JSON.')
    expect(first.max_tokens).toBe(4096)
    expect(first.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'refund order #42 for $50', cache_control: { type: 'ephemeral' } }] }])
    expect(second.messages).toHaveLength(3)
    expect(second.messages[0]).toEqual(first.messages[0])
    expect(second.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: invalid }] })
    expect(second.messages[2].role).toBe('user')
    expect(second.messages[2].content[0].text).toContain(`- 'amount': expected number, got "USD 50"`)
    // The breakpoint sits on the last base message in both requests; the tail is never cached.
    expect(breakpoints(first)).toEqual(['0.0:{"type":"ephemeral"}'])
    expect(breakpoints(second)).toEqual(['0.0:{"type":"ephemeral"}'])
    expect(JSON.stringify(second)).not.toContain('"ephemeral":true')
    expect(agent.history).toEqual([
      { role: 'user', content: 'refund order #42 for $50' },
      { role: 'assistant', content: validRefundJson },
    ])
  })

  it('sends tool_use and tool_result blocks with is_error, merged into alternating turns', async () => {
    server.script([
      anthropicMessage(
        [
          { type: 'text', text: 'checking' },
          { type: 'tool_use', id: 'toolu_2', name: 'lookup', input: { orderId: '42' } },
        ],
        'tool_use',
      ),
    ])
    server.requests.length = 0
    const response = await anthropic({ client: client(), model: 'claude-test' }).complete({
      system: 'sys',
      messages: [
        { role: 'user', content: 'look it up' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'lookup', args: { orderId: 41 } }] },
        { role: 'tool', content: "- 'orderId': expected string, got number", toolCallId: 'toolu_1', toolName: 'lookup', isError: true, ephemeral: true },
      ],
      tools: [{ name: 'lookup', description: 'find an order', inputSchema: { type: 'object', properties: { orderId: { type: 'string' } } } }],
    })
    expect(response).toEqual({
      content: 'checking',
      toolCalls: [{ id: 'toolu_2', name: 'lookup', args: { orderId: '42' } }],
      usage: { inputTokens: 40, outputTokens: 12, cacheReadTokens: 30, cacheWriteTokens: 5 },
      stopReason: 'tool_use',
    })
    const body = server.requests[0]?.body
    expect(body.tools).toEqual([
      { name: 'lookup', description: 'find an order', input_schema: { type: 'object', properties: { orderId: { type: 'string' } } } },
    ])
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look it up' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { orderId: 41 }, cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: "- 'orderId': expected string, got number", is_error: true }] },
    ])
  })

  it('sends output_config.format when structured output is on', async () => {
    server.script([anthropicText(validRefundJson)])
    server.requests.length = 0
    await anthropic({ client: client(), model: 'claude-test', structuredOutput: true, cache: false }).complete({
      messages: base,
      responseSchema: { type: 'object' },
    })
    expect(server.requests[0]?.body.output_config).toEqual({ format: { type: 'json_schema', schema: { type: 'object' } } })
    expect(breakpoints(server.requests[0]?.body)).toEqual([])
  })

  it('maps stop reasons', async () => {
    server.script([anthropicText('{"a":', 'max_tokens'), anthropicText('no', 'refusal')])
    const provider = anthropic({ client: client(), model: 'claude-test' })
    expect((await provider.complete({ messages: base })).stopReason).toBe('max_tokens')
    expect((await provider.complete({ messages: base })).stopReason).toBe('content_filter')
  })

  it('maps 429 with retry-after, 500 and 529 overloaded', async () => {
    server.script([anthropicError(429, 'rate_limit_error', { 'retry-after': '3' }), anthropicError(500, 'api_error'), anthropicError(529, 'overloaded_error')])
    const provider = anthropic({ client: client(), model: 'claude-test' })
    expect(await providerFailure(provider.complete({ messages: base }))).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 3000,
      code: 'rate_limit_error',
    })
    expect(await providerFailure(provider.complete({ messages: base }))).toMatchObject({ kind: 'http-5xx', status: 500 })
    expect(await providerFailure(provider.complete({ messages: base }))).toMatchObject({ kind: 'http-5xx', status: 529, code: 'overloaded_error' })
  })

  it('maps a malformed body, a connection reset and a timeout', async () => {
    server.script([
      { kind: 'raw', status: 200, contentType: 'application/json', body: '{"id": "msg_1", "content": [' },
      { kind: 'reset' },
      { kind: 'hang', ms: 2_000, then: anthropicText('late') },
    ])
    expect((await providerFailure(anthropic({ client: client(), model: 'claude-test' }).complete({ messages: base }))).kind).toBe('malformed-response')
    expect((await providerFailure(anthropic({ client: client(), model: 'claude-test' }).complete({ messages: base }))).kind).toBe('network')
    expect((await providerFailure(anthropic({ client: client(150), model: 'claude-test' }).complete({ messages: base }))).kind).toBe('timeout')
  })

  it('streams text deltas over SSE with usage from message_start and message_delta', async () => {
    server.script([anthropicSse(validRefundJson, { chunkSize: 6 })])
    server.requests.length = 0
    const texts: string[] = []
    let response: any
    for await (const c of anthropic({ client: client(), model: 'claude-test' }).stream({ messages: base })) {
      if (c.type === 'text') texts.push(c.text)
      else if (c.type === 'done') response = c.response
    }
    expect(texts.join('')).toBe(validRefundJson)
    expect(response).toEqual({
      content: validRefundJson,
      toolCalls: [],
      usage: { inputTokens: 40, outputTokens: Math.ceil(validRefundJson.length / 4), cacheReadTokens: 30, cacheWriteTokens: 0 },
      stopReason: 'end',
    })
    expect(server.requests[0]?.body.stream).toBe(true)
  })

  it('assembles a streamed tool_use input from input_json_delta fragments', async () => {
    server.script([anthropicToolSse('toolu_9', 'lookup', ['{"order', 'Id": "4', '2"}'])])
    let response: any
    for await (const c of anthropic({ client: client(), model: 'claude-test' }).stream({ messages: base })) if (c.type === 'done') response = c.response
    expect(response.toolCalls).toEqual([{ id: 'toolu_9', name: 'lookup', args: { orderId: '42' } }])
    expect(response.stopReason).toBe('tool_use')
  })

  it('maps an overloaded_error event inside the stream to http-5xx', async () => {
    server.script([anthropicSseOverloaded()])
    const iterate = async () => {
      for await (const _ of anthropic({ client: client(), model: 'claude-test' }).stream({ messages: base })) void _
    }
    expect((await providerFailure(iterate())).kind).toBe('http-5xx')
  })

  it('fails fast through the gate on a 400 without retrying', async () => {
    server.script([anthropicError(400, 'invalid_request_error')])
    server.requests.length = 0
    const gate = createGate({ providers: anthropic({ client: client(), model: 'claude-test' }), outputSchema: Refund, postDecide: strictOutputRules(3) })
    await expect(gate.run({ messages: base })).rejects.toMatchObject({ kind: 'unknown' })
    expect(server.requests).toHaveLength(1)
  })
})

describe('anthropic adapter in progressive mode', () => {
  it('keeps the input and cache tokens Anthropic reported before the abort', async () => {
    const invalid = `{"orderId": "42", "amount": "USD 50", "action": "refund", "reason": "${'x'.repeat(300)}"}`
    server.script([anthropicSse(invalid, { frameDelayMs: 2 }), anthropicSse(validRefundJson)])
    server.requests.length = 0
    const provider = anthropic({ client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }), model: 'claude-test' })
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = await gate.stream(ask('refund #42'), { mode: 'progressive' }).result
    const first = result.attempts[0]
    expect(first?.errorKind).toBe('schema-fail')
    expect(first?.usage).toMatchObject({ inputTokens: 40, cacheReadTokens: 30 })
    expect(first?.usage.outputTokens).toBeGreaterThan(0)
    expect(result.usage.inputTokens).toBe(80)
  })
})
