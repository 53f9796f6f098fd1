import { createAnthropic } from '@ai-sdk/anthropic'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, createGate, strictOutputRules, tool, type Message } from '../../src/index.ts'
import { aiSdk, toAiSdkCallOptions, toAiSdkPrompt } from '../../src/providers/ai-sdk/index.ts'
import { toAnthropicRequest } from '../../src/providers/anthropic/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { anthropicMessage, anthropicText } from '../adapters/support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer } from '../adapters/support/loopback-server.ts'
import { loopbackProviders } from '../adapters/support/loopback-providers.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const loopback = loopbackProviders(() => server)
const settings = { model: 'claude-test', maxTokens: 1024, cache: false, structuredOutput: false, extraBody: undefined }
/** Every text block of a body, wherever it sits. */
const texts = (body: { messages: readonly { content: unknown }[] }) =>
  body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type: string }) => b.type === 'text')

describe('Anthropic request bodies on blank text', () => {
  // The Messages API answers 400 to an empty or whitespace-only text block, and to an error result without content.
  it('leaves out whitespace-only text, even beside a tool call, and keeps the turns alternating', () => {
    const messages: Message[] = [
      { role: 'system', content: ' \n' },
      { role: 'user', content: 'refund order 42' },
      { role: 'assistant', content: '\n\n', toolCalls: [{ id: 'toolu_1', name: 'refund', args: { orderId: '42' } }] },
      { role: 'tool', content: 'refunded', toolCallId: 'toolu_1', toolName: 'refund' },
      { role: 'assistant', content: ' \t ' },
      { role: 'user', content: 'and order 43?' },
    ]
    const body = toAnthropicRequest({ system: '  ', messages }, settings)
    expect(body.system).toBeUndefined()
    expect(texts(body as never).map((b: { text: string }) => b.text)).toEqual(['refund order 42', 'and order 43?'])
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
  })

  it.each(['', '   '])('gives an error result without content (%j) a text that says so', (content) => {
    const messages: Message[] = [
      { role: 'user', content: 'refund order 42' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'refund', args: { orderId: '42' } }] },
      { role: 'tool', content, toolCallId: 'toolu_1', toolName: 'refund', isError: true },
    ]
    const body = toAnthropicRequest({ messages }, settings)
    const [result] = (body.messages[2]?.content ?? []) as readonly { type: string; content?: string; is_error?: boolean }[]
    expect(result).toMatchObject({ type: 'tool_result', is_error: true, content: 'the tool failed without a message' })
  })

  it('a blank answer sent back in the retry tail is left out, so the retry reaches the model', async () => {
    server.script([anthropicText('  \n '), anthropicText(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({
      providers: loopback.anthropic(),
      outputSchema: Refund,
      postDecide: strictOutputRules(3),
    })
    const result = await gate.run({ messages: [{ role: 'user', content: 'refund order 42 for $50' }] })
    expect(result.value).toEqual(validRefund)
    const retry = server.requests[1]?.body
    for (const block of texts(retry)) expect(block.text.trim()).not.toBe('')
  })
})

describe('Anthropic request bodies on lone surrogates', () => {
  // Half of a UTF-16 pair (a tool output cut in the middle of an emoji) has no UTF-8 form: the
  // Messages API answers 400 "no low surrogate in string" to every later request of the conversation.
  const cut = 'order 42 shipped \u{1F4E6}'.slice(0, -1)
  const escapedHalf = /\\ud[89a-f][0-9a-f]{2}/i

  it('writes every lone surrogate U+FFFD in text, tool results, tool inputs and the system prompt, and keeps whole pairs', () => {
    const messages: Message[] = [
      { role: 'user', content: `where is order 42? \u{1F600} ${'\udc00'}` },
      { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'track', args: { note: cut, [`k${'\ud800'}`]: 1 } }] },
      { role: 'tool', content: cut, toolCallId: 'toolu_1', toolName: 'track' },
    ]
    const body = toAnthropicRequest({ system: `be brief ${'\ud83d'}`, messages }, settings)
    const text = JSON.stringify(body)
    expect(text).not.toMatch(escapedHalf)
    expect(text).toContain('\u{1F600}')
    expect(body.system).toBe('be brief \ufffd')
    const [use] = (body.messages[1]?.content ?? []) as readonly { input?: unknown }[]
    expect(use?.input).toEqual({ note: 'order 42 shipped \ufffd', 'k\ufffd': 1 })
  })

  it('writes lone surrogates U+FFFD in the tools, sent with every request: name, description and schema', () => {
    const tools = [
      { name: 'track', description: `track an order ${'\ud83d'}`, inputSchema: { type: 'object', properties: { note: { type: 'string', description: cut } } } },
    ]
    const body = toAnthropicRequest({ messages: [{ role: 'user', content: 'where is order 42?' }], tools }, settings)
    expect(JSON.stringify(body)).not.toMatch(escapedHalf)
    expect(body.tools?.[0]).toMatchObject({
      name: 'track',
      description: 'track an order \ufffd',
      input_schema: { properties: { note: { description: 'order 42 shipped \ufffd' } } },
    })
  })

  it('a tool output cut in the middle of an emoji reaches the model as U+FFFD through an agent run', async () => {
    server.script([anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'track', input: { orderId: '42' } }], 'tool_use'), anthropicText('on its way')])
    server.requests.length = 0
    const track = tool({ name: 'track', description: 'track an order', input: Type.Object({ orderId: Type.String() }), execute: () => cut })
    const result = await Agent.create({ provider: loopback.anthropic() }).tool(track).build().runDetailed('where is order 42?')
    expect(result.text).toBe('on its way')
    expect(JSON.stringify(server.requests[1]?.body)).not.toMatch(escapedHalf)
    expect(JSON.stringify(server.requests[1]?.body)).toContain('order 42 shipped \ufffd')
  })
})

describe('AI SDK prompts, on the way to @ai-sdk/anthropic', () => {
  const claude = () => aiSdk(createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'k' })('claude-test'))
  const cut = 'order 42 shipped \u{1F4E6}'.slice(0, -1)

  it('leave out blank assistant text, say an empty error, and write lone surrogates U+FFFD', () => {
    const prompt = toAiSdkPrompt(undefined, [
      { role: 'user', content: `where is order 42? ${'\udc00'}` },
      { role: 'assistant', content: ' \n', toolCalls: [{ id: 'toolu_1', name: 'track', args: { note: cut } }] },
      { role: 'tool', content: '', toolCallId: 'toolu_1', toolName: 'track', isError: true },
    ])
    expect(prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'where is order 42? \ufffd' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu_1', toolName: 'track', input: { note: 'order 42 shipped \ufffd' } }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'toolu_1', toolName: 'track', output: { type: 'error-text', value: 'the tool failed without a message' } },
        ],
      },
    ])
  })

  it('write lone surrogates U+FFFD in the system prompt and the tools too', () => {
    const options = toAiSdkCallOptions(
      {
        system: `be brief ${'\ud83d'}`,
        messages: [{ role: 'user', content: 'where is order 42?' }],
        tools: [{ name: 'track', description: cut, inputSchema: { type: 'object', properties: { note: { type: 'string', description: cut } } } }],
      },
      false,
    )
    expect(JSON.stringify(options)).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i)
    expect(options.prompt[0]).toEqual({ role: 'system', content: 'be brief \ufffd' })
    expect(options.tools?.[0]).toMatchObject({
      description: 'order 42 shipped \ufffd',
      inputSchema: { properties: { note: { description: 'order 42 shipped \ufffd' } } },
    })
  })

  it('a blank answer sent back in the retry tail never reaches the Messages API as a blank text block', async () => {
    server.script([anthropicText('  \n '), anthropicText(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({ providers: claude(), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = await gate.run({ messages: [{ role: 'user', content: 'refund order 42 for $50' }] })
    expect(result.value).toEqual(validRefund)
    for (const block of texts(server.requests[1]?.body)) expect(block.text.trim()).not.toBe('')
  })
})
