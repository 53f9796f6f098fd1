import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import OpenAI from 'openai'
import { Type } from 'typebox'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Agent, tool, type Provider } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { gatewayText, gatewayToolCall } from './support/ai-sdk-wire.ts'
import { anthropicMessage, anthropicText, anthropicToolSse } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'
import { openaiText, openaiToolCalls } from './support/openai-wire.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())
afterEach(() => {
  // Nothing a test sent may have reached Object.prototype.
  expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined()
  expect(Object.prototype).not.toHaveProperty('isAdmin')
})

const base = { id: 'chatcmpl-1', created: 1, model: 'gpt-test' }

/** An OpenAI SSE stream of one tool call whose arguments arrive in 5-character fragments. */
function openaiToolSse(id: string, args: string): Reply {
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
  const chunk = (delta: unknown, finish: string | null = null) =>
    frame({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })
  const frames = [chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name: 'lookup', arguments: '' } }] })]
  for (let i = 0; i < args.length; i += 5) frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + 5) } }] }))
  frames.push(chunk({}, 'tool_calls'))
  frames.push('data: [DONE]\n\n')
  return { kind: 'sse', frames }
}

const anthropicToolCall = (args: string): Reply => ({
  kind: 'raw',
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify((anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }], 'tool_use') as { body: object }).body).replace(
    '"input":{}',
    `"input":${args}`,
  ),
})

const ADAPTERS = [
  {
    name: 'openai',
    provider: (): Provider => openai({ client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0 }), model: 'gpt-test' }),
    call: (args: string): Reply => openaiToolCalls([{ id: 'call_1', name: 'lookup', arguments: args }]),
    final: () => openaiText('delivered'),
  },
  {
    name: 'anthropic',
    provider: (): Provider => anthropic({ client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }), model: 'claude-test' }),
    call: anthropicToolCall,
    final: () => anthropicText('delivered'),
  },
  {
    name: 'ai-sdk',
    provider: (): Provider => aiSdk(createGateway({ baseURL: server.url, apiKey: 'k' })('openai/gpt-test')),
    call: (args: string): Reply => gatewayToolCall('c1', 'lookup', args),
    final: () => gatewayText('delivered'),
  },
] as const

/** Poisoned arguments a model may write: a `__proto__` key at the root, nested, in an array, written with escapes, or a `constructor` holding a `prototype`. */
const POISONED = [
  '{"__proto__": {"isAdmin": true}}',
  '{"orderId": "42", "__proto__": {"isAdmin": true}}',
  '{"orderId": "42", "meta": {"__proto__": {"isAdmin": true}}}',
  '{"orderId": "42", "list": [{"__proto__": {"isAdmin": true}}]}',
  '{"orderId": "42", "\\u005f_proto__": {"isAdmin": true}}',
  '{"orderId": "42", "constructor": {"prototype": {"isAdmin": true}}}',
]

describe.each(ADAPTERS)('the $name adapter, a model writing a forbidden key in tool arguments', ({ provider, call, final }) => {
  it.each(POISONED)('re-asks once with forbidden_key feedback for %s, then runs the corrected call', async (poisoned) => {
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
    server.script([call(poisoned), call('{"orderId": "42"}'), final()])
    server.requests.length = 0
    const agent = Agent.create({ provider: provider(), name: 'support' }).tool(lookup).build()
    const failures: string[] = []
    agent.on('validation_failed', (e) => failures.push(...e.issues.map((i) => i.code)))
    const result = await agent.runDetailed('where is 42?')

    expect(result.text).toBe('delivered')
    expect(failures).toEqual(['forbidden_key'])
    expect(server.requests).toHaveLength(3)
    expect(JSON.stringify(server.requests[1]?.body)).toMatch(/__proto__|constructor/)
    expect(result.functionsCalled).toMatchObject([{ name: 'lookup', status: 'ok', retryCount: 1, outcome: 'success', args: { orderId: '42' } }])
    expect(received).toEqual([{ orderId: '42' }])
    expect(Object.hasOwn(received[0] as object, '__proto__')).toBe(false)
  })
})

describe('streamed tool arguments holding __proto__', () => {
  it('reach the caller of an OpenAI stream as their raw text, never as an object with that key', async () => {
    server.script([openaiToolSse('call_1', '{"__proto__": {"isAdmin": true}}')])
    const p = ADAPTERS[0].provider()
    let args: unknown
    for await (const chunk of p.stream?.({ messages: [{ role: 'user', content: 'go' }] }) ?? [])
      if (chunk.type === 'done') args = chunk.response.toolCalls[0]?.args
    expect(args).toBe('{"__proto__": {"isAdmin": true}}')
  })

  it('reach the caller of an Anthropic stream as their raw text', async () => {
    server.script([anthropicToolSse('toolu_1', 'lookup', ['{"__pro', 'to__": {"isAd', 'min": true}}'])])
    const p = ADAPTERS[1].provider()
    let args: unknown
    for await (const chunk of p.stream?.({ messages: [{ role: 'user', content: 'go' }] }) ?? [])
      if (chunk.type === 'done') args = chunk.response.toolCalls[0]?.args
    expect(args).toBe('{"__proto__": {"isAdmin": true}}')
  })
})
