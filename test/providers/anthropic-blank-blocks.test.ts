import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, strictOutputRules, type Message } from '../../src/index.ts'
import { toAnthropicRequest } from '../../src/providers/anthropic/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { anthropicText } from '../adapters/support/anthropic-wire.ts'
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
