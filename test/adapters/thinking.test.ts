import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, tool, type Message, type ModelResponse } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { anthropicMessage, anthropicText, anthropicThinkingSse, redactedThinking, thinking, withThinkingRules } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const provider = () =>
  anthropic({
    client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }),
    model: 'claude-test',
    extraBody: { thinking: { type: 'enabled', budget_tokens: 1024 } },
  })

const looked: unknown[] = []
const lookup = tool({
  name: 'lookup',
  description: 'find an order',
  input: Type.Object({ orderId: Type.String() }),
  execute: (args) => {
    looked.push(args)
    return { status: 'delivered' }
  },
})

const toolUse = (id: string, input: unknown) => ({ type: 'tool_use', id, name: 'lookup', input })
const agentWithLookup = () => Agent.create({ provider: provider(), name: 'support' }).tool(lookup).build()
const reasoningIn = (history: readonly Message[]) => history.flatMap((m) => m.reasoning ?? [])

describe('anthropic extended thinking', () => {
  it('parses thinking and redacted_thinking blocks into the response, signature included', async () => {
    server.script([anthropicMessage([thinking('Order 42 was shipped.', 'sig-1'), redactedThinking('ENC'), { type: 'text', text: 'ok' }])])
    const response = await provider().complete({ messages: [{ role: 'user', content: 'hi' }] })
    expect(response.reasoning).toEqual([
      { text: 'Order 42 was shipped.', signature: 'sig-1' },
      { text: '', redactedData: 'ENC' },
    ])
    expect(response.content).toBe('ok')
  })

  it('sends the thinking blocks back unchanged, first in the assistant turn of a tool loop', async () => {
    looked.length = 0
    server.script(
      withThinkingRules([
        anthropicMessage([thinking('Look it up.', 'sig-1'), redactedThinking('ENC'), toolUse('toolu_1', { orderId: '42' })], 'tool_use'),
        anthropicText('It was delivered.'),
      ]),
    )
    server.requests.length = 0
    const agent = agentWithLookup()
    const answer = await agent.run('where is order 42?')

    expect(answer).toBe('It was delivered.')
    expect(looked).toEqual([{ orderId: '42' }])
    const assistant = server.requests[1]?.body.messages[1]
    expect(assistant.content.slice(0, 2)).toEqual([
      { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'ENC' },
    ])
    expect(agent.history[1]).toMatchObject({
      role: 'assistant',
      reasoning: [
        { text: 'Look it up.', signature: 'sig-1' },
        { text: '', redactedData: 'ENC' },
      ],
    })
  })

  it("keeps them through a tool-argument retry, and persists the turn's own, never the retry's", async () => {
    looked.length = 0
    server.script(
      withThinkingRules([
        anthropicMessage([thinking('Use the number.', 'sig-1'), toolUse('toolu_1', { orderId: 42 })], 'tool_use'),
        anthropicMessage([thinking('It must be a string.', 'sig-2'), toolUse('toolu_2', { orderId: '42' })], 'tool_use'),
        anthropicText('It was delivered.'),
      ]),
    )
    server.requests.length = 0
    const agent = agentWithLookup()
    const answer = await agent.run('where is order 42?')

    expect(answer).toBe('It was delivered.')
    expect(looked).toEqual([{ orderId: '42' }])
    expect(server.requests).toHaveLength(3)
    // The retry's tail echoes the failing call after the thinking it came with.
    expect(server.requests[1]?.body.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'Use the number.', signature: 'sig-1' })
    expect(server.requests[2]?.body.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'Use the number.', signature: 'sig-1' })
    expect(reasoningIn(agent.history)).toEqual([{ text: 'Use the number.', signature: 'sig-1' }])
    expect(JSON.stringify(agent.history)).not.toContain('sig-2')
  })

  it('assembles streamed thinking deltas, the signature delta and a redacted block', async () => {
    server.script([anthropicThinkingSse(['Look ', 'it up.'], 'sig-9', 'ENC', { id: 'toolu_9', name: 'lookup', json: '{"orderId":"42"}' })])
    let response: ModelResponse | undefined
    for await (const chunk of provider().stream({ messages: [{ role: 'user', content: 'hi' }] })) if (chunk.type === 'done') response = chunk.response
    expect(response?.reasoning).toEqual([
      { text: 'Look it up.', signature: 'sig-9' },
      { text: '', redactedData: 'ENC' },
    ])
    expect(response?.toolCalls).toEqual([{ id: 'toolu_9', name: 'lookup', args: { orderId: '42' } }])
  })

  it('leaves out a reasoning block that carries no signature (another provider wrote it)', async () => {
    server.script([anthropicText('ok')])
    server.requests.length = 0
    await provider().complete({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello', reasoning: [{ text: 'unsigned' }, { text: 'signed', signature: 's' }] },
        { role: 'user', content: 'again' },
      ],
    })
    expect(server.requests[0]?.body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'signed', signature: 's' },
      { type: 'text', text: 'hello' },
    ])
  })
})

describe('ai-sdk reasoning parts', () => {
  const gatewayReply = (content: unknown[]): Reply => ({
    kind: 'json',
    body: {
      content,
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      usage: { inputTokens: { total: 10 }, outputTokens: { total: 5 } },
      warnings: [],
    },
  })

  it('keeps a reasoning part with its provider metadata and sends it back as provider options', async () => {
    const metadata = { anthropic: { signature: 'sig-1' } }
    server.script([
      gatewayReply([
        { type: 'reasoning', text: 'Look it up.', providerMetadata: metadata },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"orderId":"42"}' },
      ]),
      gatewayReply([{ type: 'text', text: 'ok' }]),
    ])
    server.requests.length = 0
    const model = aiSdk(createGateway({ baseURL: server.url, apiKey: 'k' })('anthropic/claude-test'))
    const response = await model.complete({ messages: [{ role: 'user', content: 'hi' }] })
    expect(response.reasoning).toEqual([{ text: 'Look it up.', signature: 'sig-1', providerMetadata: metadata }])
    await model.complete({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', toolCalls: [...response.toolCalls], ...(response.reasoning !== undefined ? { reasoning: response.reasoning } : {}) },
        { role: 'tool', content: 'delivered', toolCallId: 'c1', toolName: 'lookup' },
      ],
    })
    expect(server.requests[1]?.body.prompt[1].content[0]).toEqual({ type: 'reasoning', text: 'Look it up.', providerOptions: metadata })
  })
})
