import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, tool, type Provider } from '../../src/index.ts'
import { anthropic, RAW_ARGUMENTS_KEY } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { gatewayText, gatewayToolCall } from './support/ai-sdk-wire.ts'
import { anthropicMessage, anthropicText } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'
import { loopbackProviders } from './support/loopback-providers.ts'
import { openaiText, openaiToolCalls } from './support/openai-wire.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const loopback = loopbackProviders(() => server)
const openaiProvider = loopback.openai
const anthropicProvider = loopback.anthropic
const gatewayProvider = loopback.gateway

const Lookup = Type.Object({ orderId: Type.String() }, { additionalProperties: false })
/** An Anthropic request message as the loopback server received it. */
type AnthropicWireMessage = { readonly content: readonly { readonly type: string; readonly cache_control?: unknown }[] }

const received: unknown[] = []
const lookup = tool({
  name: 'lookup',
  description: 'find an order',
  input: Type.Object({ orderId: Type.String() }),
  execute: (args) => {
    received.push(args)
    return 'delivered'
  },
})
const agentOn = (provider: Provider) => Agent.create({ provider, name: 'support' }).tool(lookup).build()

const cut = '{"orderId": '
const poisoned = '{"orderId": "42", "__proto__": {"isAdmin": true}}'

describe('tool arguments echoed to the model', () => {
  it('echoes unparseable arguments to Anthropic as sent, inside the object its wire requires', async () => {
    server.script([anthropicText('ok')])
    server.requests.length = 0
    await anthropicProvider().complete({
      messages: [
        { role: 'user', content: 'look it up' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'lookup', args: cut }] },
        { role: 'tool', content: 'the arguments are not valid JSON', toolCallId: 'toolu_1', toolName: 'lookup', isError: true },
      ],
    })
    expect(server.requests[0]?.body.messages[1].content[0]).toMatchObject({ type: 'tool_use', id: 'toolu_1', input: { [RAW_ARGUMENTS_KEY]: cut } })
  })

  it('echoes arguments that are JSON but not an object as sent', async () => {
    server.script([anthropicText('ok')])
    server.requests.length = 0
    await anthropicProvider().complete({
      messages: [
        { role: 'user', content: 'look it up' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'a', name: 'lookup', args: '["42"]' },
            { id: 'b', name: 'lookup', args: 42 },
            { id: 'c', name: 'lookup', args: '' },
          ],
        },
      ],
    })
    expect(server.requests[0]?.body.messages[1].content.map((b: any) => b.input)).toEqual([
      { [RAW_ARGUMENTS_KEY]: '["42"]' },
      { [RAW_ARGUMENTS_KEY]: '42' },
      {},
    ])
  })

  it('keeps what OpenAI sent in the retry tail and tells the model it was not valid JSON', async () => {
    received.length = 0
    server.script([
      openaiToolCalls([{ id: 'call_1', name: 'lookup', arguments: cut }]),
      openaiToolCalls([{ id: 'call_2', name: 'lookup', arguments: '{"orderId": "42"}' }]),
      openaiText('delivered'),
    ])
    server.requests.length = 0
    expect(await agentOn(openaiProvider()).run('where is 42?')).toBe('delivered')
    const tail = server.requests[1]?.body.messages.slice(-2)
    expect(tail[0].tool_calls[0].function.arguments).toBe(cut)
    expect(tail[1]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
    expect(tail[1].content).toContain('not valid JSON')
    expect(received).toEqual([{ orderId: '42' }])
  })
})

const toolCallsOf = (reply: 'openai' | 'anthropic' | 'ai-sdk', args: string): Reply =>
  reply === 'openai'
    ? openaiToolCalls([{ id: 'call_1', name: 'lookup', arguments: args }])
    : reply === 'anthropic'
      ? {
          kind: 'raw',
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify(
            (anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }], 'tool_use') as { body: object }).body,
          ).replace('"input":{}', `"input":${args}`),
        }
      : gatewayToolCall('c1', 'lookup', args)

describe.each([
  { name: 'openai' as const, provider: openaiProvider, final: () => openaiText('delivered') },
  { name: 'anthropic' as const, provider: anthropicProvider, final: () => anthropicText('delivered') },
  { name: 'ai-sdk' as const, provider: gatewayProvider, final: () => gatewayText('delivered') },
])('$name adapter and a __proto__ key in tool arguments', ({ name, provider, final }) => {
  it('hands the arguments on as their raw text, never as an object with that key', async () => {
    server.script([toolCallsOf(name, poisoned)])
    const response = await provider().complete({ messages: [{ role: 'user', content: 'go' }] })
    const args = response.toolCalls[0]?.args
    expect(typeof args).toBe('string')
    expect(JSON.parse(args as string)).toEqual(JSON.parse(poisoned))
  })

  it('never lets the key reach the tool: the agent refuses it and the model fixes the call', async () => {
    received.length = 0
    server.script([toolCallsOf(name, poisoned), toolCallsOf(name, '{"orderId": "42"}'), final()])
    server.requests.length = 0
    const failures: string[] = []
    const agent = agentOn(provider())
    agent.on('validation_failed', (e) => failures.push(...e.issues.map((i) => i.code)))
    expect(await agent.run('where is 42?')).toBe('delivered')
    expect(received).toEqual([{ orderId: '42' }])
    expect(received.every((r) => !Object.hasOwn(r as object, '__proto__'))).toBe(true)
    expect(failures).toEqual(['forbidden_key'])
  })
})

describe('OpenAI tool arguments that arrive already parsed (a proxy that decodes them)', () => {
  const parsedArgs = (args: unknown): Reply => {
    const reply = openaiToolCalls([{ id: 'call_1', name: 'lookup', arguments: '' }]) as { kind: 'json'; body: any }
    reply.body.choices[0].message.tool_calls[0].function.arguments = args
    return reply
  }

  it('keeps a safe object as the arguments', async () => {
    server.script([parsedArgs({ orderId: '42', constructor: 'Ferrari' })])
    const response = await openaiProvider().complete({ messages: [{ role: 'user', content: 'go' }] })
    expect(response.toolCalls[0]?.args).toEqual({ orderId: '42', constructor: 'Ferrari' })
  })

  it('turns a __proto__ key into forbidden_key feedback the model corrects, not a malformed response', async () => {
    received.length = 0
    server.script([parsedArgs(JSON.parse(poisoned)), toolCallsOf('openai', '{"orderId": "42"}'), openaiText('delivered')])
    const failures: string[] = []
    const agent = agentOn(openaiProvider())
    agent.on('validation_failed', (e) => failures.push(...e.issues.map((i) => i.code)))
    expect(await agent.run('where is 42?')).toBe('delivered')
    expect(failures).toEqual(['forbidden_key'])
    expect(received).toEqual([{ orderId: '42' }])
  })

  it('hands arguments that are no object on as their JSON text', async () => {
    server.script([parsedArgs(42)])
    const response = await openaiProvider().complete({ messages: [{ role: 'user', content: 'go' }] })
    expect(response.toolCalls[0]?.args).toBe('42')
  })
})

describe('unparseable and invalid tool arguments through the adapters', () => {
  it('turns unparseable OpenAI tool arguments into an argument retry with feedback, not a crash', async () => {
    server.script([
      openaiToolCalls([{ id: 'call_1', name: 'lookup', arguments: '{"orderId": "42",' }]),
      openaiToolCalls([{ id: 'call_2', name: 'lookup', arguments: '{"orderId": "42"}' }]),
      openaiText('done'),
    ])
    server.requests.length = 0
    const seen: unknown[] = []
    const lookup = tool({ name: 'lookup', description: 'find an order', input: Lookup, execute: async (args) => seen.push(args) })
    const agent = Agent.create({ provider: openai({ client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0 }) }), model: 'gpt-test' })
      .tool(lookup)
      .build()
    const stages: string[] = []
    agent.on('validation_failed', (e) => stages.push(e.stage))
    const result = await agent.runDetailed('look up order 42')

    expect(result.text).toBe('done')
    expect(stages).toEqual(['tool-args'])
    expect(seen).toEqual([{ orderId: '42' }])
    expect(result.functionsCalled).toEqual([expect.objectContaining({ name: 'lookup', args: { orderId: '42' }, retryCount: 1, outcome: 'success' })])
    const retry = server.requests[1]?.body
    expect(retry.messages.at(-2).tool_calls[0].function.arguments).toBe('{"orderId": "42",')
    expect(retry.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
    expect(retry.messages.at(-1).content).toContain('not valid JSON')
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toMatch(/ephemeral|isError|toolName/)
  })

  it('keeps the Anthropic cache breakpoint on the last base block through a tool-argument retry', async () => {
    server.script([
      anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { orderId: 42 } }], 'tool_use'),
      anthropicMessage([{ type: 'tool_use', id: 'toolu_2', name: 'lookup', input: { orderId: '42' } }], 'tool_use'),
      anthropicText('done'),
    ])
    server.requests.length = 0
    const lookup = tool({ name: 'lookup', description: 'find an order', input: Lookup, execute: async () => 'found' })
    const agent = Agent.create({ provider: anthropic({ client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }) }), model: 'claude-test' })
      .tool(lookup)
      .build()
    await agent.run('look up order 42')
    const marks = server.requests.map((r) =>
      (r.body.messages as AnthropicWireMessage[]).flatMap((m, i) =>
        m.content.flatMap((b, j) => (b.cache_control !== undefined ? [`${i}.${j}:${b.type}`] : [])),
      ),
    )
    // Request 2 is the retry: base [user] + tail [assistant tool_use, user tool_result is_error]; the tail is never cached.
    expect(marks).toEqual([['0.0:text'], ['0.0:text'], ['2.0:tool_result']])
    expect(server.requests[1]?.body.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true })
    // The committed turn holds the one logical call with its final arguments, answered by its result.
    expect(server.requests[2]?.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { orderId: '42' } }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('found'), cache_control: { type: 'ephemeral' } }],
      },
    ])
  })
})
