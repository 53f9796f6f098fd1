import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, createGate, tool, type Provider } from '../../src/index.ts'
import { gatewayText } from './support/ai-sdk-wire.ts'
import { anthropicMessage, anthropicText } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'
import { loopbackProviders } from './support/loopback-providers.ts'
import { openaiCompletion, openaiText } from './support/openai-wire.ts'
import { providerFailure } from './support/provider-failure.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const loopback = loopbackProviders(() => server)
const openaiProvider = loopback.openai
const anthropicProvider = loopback.anthropic
const gatewayProvider = loopback.gateway

const sse = (frames: readonly unknown[]): Reply => ({ kind: 'sse', frames: [...frames.map((f) => `data: ${JSON.stringify(f)}\n\n`), 'data: [DONE]\n\n'] })
const anthropicSseOf = (events: readonly { readonly type: string; readonly [field: string]: unknown }[]): Reply => ({
  kind: 'sse',
  frames: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`),
})
const openaiMessage = (message: unknown, finish = 'tool_calls'): Reply => openaiCompletion(message, finish)
const openaiChunk = (delta: unknown, finish: string | null = null) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-test',
  choices: [{ index: 0, delta, finish_reason: finish }],
})
const anthropicStart = {
  type: 'message_start',
  message: { id: 'm', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage: { input_tokens: 9, output_tokens: 1 } },
}
const anthropicEnd = [{ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } }, { type: 'message_stop' }]

/** A tool-call answer whose call carries no id, and the plain answer after it, per wire and transport. */
const idless: readonly { readonly name: string; readonly provider: () => Provider; readonly stream: boolean; readonly first: Reply; readonly then: Reply }[] = [
  {
    name: 'openai',
    provider: openaiProvider,
    stream: false,
    first: openaiMessage({ role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'lookup', arguments: '{"orderId":"42"}' } }] }),
    then: openaiText('done'),
  },
  {
    name: 'openai (null id)',
    provider: openaiProvider,
    stream: false,
    first: openaiMessage({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: null, type: 'function', function: { name: 'lookup', arguments: '{"orderId":"42"}' } }],
    }),
    then: openaiText('done'),
  },
  {
    name: 'openai stream',
    provider: openaiProvider,
    stream: true,
    first: sse([openaiChunk({ tool_calls: [{ index: 0, function: { name: 'lookup', arguments: '{"orderId":"42"}' } }] }), openaiChunk({}, 'tool_calls')]),
    then: sse([openaiChunk({ content: 'done' }), openaiChunk({}, 'stop')]),
  },
  {
    name: 'anthropic',
    provider: anthropicProvider,
    stream: false,
    first: anthropicMessage([{ type: 'tool_use', name: 'lookup', input: { orderId: '42' } }], 'tool_use'),
    then: anthropicText('done'),
  },
  {
    name: 'anthropic stream',
    provider: anthropicProvider,
    stream: true,
    first: anthropicSseOf([
      anthropicStart,
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: '', name: 'lookup', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"orderId":"42"}' } },
      ...anthropicEnd,
    ]),
    then: anthropicSseOf([
      anthropicStart,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'done' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
    ]),
  },
  {
    name: 'ai-sdk',
    provider: gatewayProvider,
    stream: false,
    first: {
      kind: 'json',
      body: {
        content: [{ type: 'tool-call', toolCallId: '', toolName: 'lookup', input: '{"orderId":"42"}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: { inputTokens: { total: 9 }, outputTokens: { total: 3 } },
        warnings: [],
      },
    },
    then: gatewayText('done'),
  },
]

describe('Provider adapters on a tool call without an id', () => {
  it.each(idless)('$name: the call gets an id, runs once, and the session commits the exchange', async ({ provider, stream, first, then }) => {
    server.script([first, then])
    const ran: unknown[] = []
    const lookup = tool({
      name: 'lookup',
      description: 'find an order',
      input: Type.Object({ orderId: Type.String() }),
      execute: (args) => (ran.push(args), 'shipped'),
    })
    const session = await Agent.create({ provider: provider() }).tool(lookup).build().session('customer-42')
    const result = stream ? await session.stream('where is order 42?').result : await session.runDetailed('where is order 42?')
    expect(result.text).toBe('done')
    expect(ran).toEqual([{ orderId: '42' }])
    const [call] = result.functionsCalled
    expect(call?.id).toMatch(/^call_[0-9a-f-]{36}$/)
    const stored = session.history
    const assistant = stored.find((m) => m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0)
    const answer = stored.find((m) => m.role === 'tool')
    expect(assistant?.toolCalls?.[0]?.id).toBe(call?.id)
    expect(answer?.toolCallId).toBe(call?.id)
  })

  it('gives two id-less calls of one turn two ids', async () => {
    server.script([
      openaiMessage({
        role: 'assistant',
        content: null,
        tool_calls: [
          { type: 'function', function: { name: 'lookup', arguments: '{"orderId":"1"}' } },
          { type: 'function', function: { name: 'lookup', arguments: '{"orderId":"2"}' } },
        ],
      }),
    ])
    const response = await openaiProvider().complete({ messages: [{ role: 'user', content: 'go' }] })
    const [a, b] = response.toolCalls
    expect(a?.id).not.toBe(b?.id)
  })
})

describe('Provider adapters on tool calls of the wrong shape', () => {
  const base = [{ role: 'user' as const, content: 'go' }]
  const drain = async (provider: Provider) => {
    for await (const _ of provider.stream?.({ messages: base }) ?? []) void _
  }
  it.each([
    ['a null call', openaiMessage({ role: 'assistant', content: null, tool_calls: [null] })],
    [
      'a function call whose function is null',
      openaiMessage({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: null }] }),
    ],
  ])('openai: reports %s as kind malformed-response, never a TypeError', async (_what, reply) => {
    server.script([reply])
    const error = await providerFailure(openaiProvider().complete({ messages: base }))
    expect(error.kind).toBe('malformed-response')
    expect(error.message).not.toMatch(/Cannot read properties/)
  })

  it('openai: reads a call without its type as the function call it holds', async () => {
    server.script([
      openaiMessage({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', function: { name: 'lookup', arguments: '{"orderId":"42"}' } }] }),
    ])
    const response = await openaiProvider().complete({ messages: base })
    expect(response.toolCalls).toEqual([{ id: 'c1', name: 'lookup', args: { orderId: '42' } }])
  })

  it('openai stream: reports a null tool-call delta as kind malformed-response', async () => {
    server.script([sse([openaiChunk({ tool_calls: [null] }), openaiChunk({}, 'tool_calls')])])
    const error = await providerFailure(drain(openaiProvider()))
    expect(error.kind).toBe('malformed-response')
    expect(error.message).not.toMatch(/Cannot read properties/)
  })

  it.each([
    ['a content_block_start without its block', { type: 'content_block_start', index: 0 }],
    ['a content_block_delta without its delta', { type: 'content_block_delta', index: 0, delta: null }],
    ['a text_delta whose text is null', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: null } }],
  ])('anthropic stream: reports %s as kind malformed-response', async (_what, event) => {
    server.script([anthropicSseOf([anthropicStart, event as { type: string; [field: string]: unknown }, ...anthropicEnd])])
    const error = await providerFailure(drain(anthropicProvider()))
    expect(error.kind).toBe('malformed-response')
    expect(error.message).not.toMatch(/Cannot read properties/)
  })
})

describe('Provider adapters on a text block whose text is null', () => {
  it.each([
    ['anthropic', anthropicProvider, anthropicMessage([{ type: 'text', text: null }])],
    [
      'ai-sdk',
      gatewayProvider,
      { kind: 'json', body: { content: [{ type: 'text', text: null }], finishReason: { unified: 'stop', raw: 'stop' }, usage: {}, warnings: [] } } as Reply,
    ],
  ] as const)('%s: is kind malformed-response, never the answer "null"', async (_name, provider, reply) => {
    server.script([reply])
    const gate = createGate({ providers: provider() })
    await expect(gate.run({ messages: [{ role: 'user', content: 'go' }] })).rejects.toMatchObject({ kind: 'malformed-response' })
  })
})
