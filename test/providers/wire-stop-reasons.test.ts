import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, createGate, retryTruncated, tool, type Provider } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropicMessage, anthropicSse, anthropicText } from '../adapters/support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from '../adapters/support/loopback-server.ts'
import { loopbackProviders } from '../adapters/support/loopback-providers.ts'
import { openaiCompletion, openaiSse, openaiText } from '../adapters/support/openai-wire.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const loopback = loopbackProviders(() => server)
const aiOpenAIChat = (): Provider => aiSdk(createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k' }).chat('gpt-test'))
const aiAnthropic = (): Provider => aiSdk(createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'k' })('claude-test'))
const ask = { messages: [{ role: 'user' as const, content: 'find the latest refund policy' }] }
const framesOf = (reply: Reply): readonly string[] => (reply.kind === 'sse' ? reply.frames : [])

describe("Anthropic's pause_turn", () => {
  // The API paused a long turn before its end: the text so far is not the answer.
  const paused = 'Let me search the policy pages first.'

  it.each([
    ['anthropic', false],
    ['anthropic', true],
    ['@ai-sdk/anthropic', false],
    ['@ai-sdk/anthropic', true],
  ] as const)('%s (stream %s): a paused turn is never accepted as a complete answer', async (name, stream) => {
    server.script([stream ? anthropicSse(paused, { stop: 'pause_turn' }) : anthropicText(paused, 'pause_turn')])
    const gate = createGate({ providers: name === 'anthropic' ? loopback.anthropic() : aiAnthropic() })
    const run = stream ? gate.stream(ask, { mode: 'buffer' }).result : gate.run(ask)
    await expect(run).rejects.toMatchObject({ name: 'ReliabilityFailFastError', kind: 'truncated' })
  })
})

describe('AI SDK providers on a stream cut before its finish', () => {
  // The AI SDK's own providers end such a stream with a `finish` part of reason `interrupted`.
  const answer = 'The refund of order 42 is approved and on its way.'

  it.each([
    ['@ai-sdk/openai (chat)', () => openaiSse(answer), aiOpenAIChat],
    ['@ai-sdk/anthropic', () => anthropicSse(answer), aiAnthropic],
  ] as const)('%s: the part of an answer is kind malformed-response, never a whole answer', async (_name, reply, provider) => {
    // A proxy that closes the response cleanly after a few deltas, before the finish.
    server.script([{ kind: 'sse', frames: framesOf(reply()).slice(0, 5) }])
    const gate = createGate({ providers: provider() })
    await expect(gate.stream(ask, { mode: 'buffer' }).result).rejects.toMatchObject({ kind: 'malformed-response' })
  })

  it.each([
    ['@ai-sdk/openai (chat)', () => openaiSse(answer), aiOpenAIChat],
    ['@ai-sdk/anthropic', () => anthropicSse(answer), aiAnthropic],
  ] as const)('%s: the whole stream is still the answer', async (_name, reply, provider) => {
    server.script([reply()])
    const result = await createGate({ providers: provider() }).stream(ask, { mode: 'buffer' }).result
    expect(result.response.content).toBe(answer)
  })
})

describe('Tool calls of an answer cut by the token limit', () => {
  // Anthropic hands back a call cut inside its input parsed as far as it got: here the amount is lost.
  const cutAnthropic = anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'refund', input: { orderId: '42' } }], 'max_tokens')
  const cutOpenAI = openaiCompletion(
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'refund', arguments: '{"orderId":"42"}' } }] },
    'length',
  )
  const whole = anthropicMessage([{ type: 'tool_use', id: 'toolu_2', name: 'refund', input: { orderId: '42', amount: 50 } }], 'tool_use')
  const refundTool = (ran: unknown[]) =>
    tool({
      name: 'refund',
      description: 'refund an order',
      input: Type.Object({ orderId: Type.String(), amount: Type.Optional(Type.Number()) }),
      execute: (args) => (ran.push(args), 'refunded'),
    })

  it.each([
    ['anthropic', cutAnthropic, anthropicText('done')],
    ['openai', cutOpenAI, openaiText('done')],
  ] as const)('%s: are never run, the answer is kind truncated', async (name, cut, then) => {
    server.script([cut, then])
    const ran: unknown[] = []
    const agent = Agent.create({ provider: loopback[name]() }).tool(refundTool(ran)).build()
    await expect(agent.runDetailed('refund order 42 for $50')).rejects.toMatchObject({ kind: 'truncated' })
    expect(ran).toEqual([])
  })

  it('retryTruncated asks again, and only the whole call runs', async () => {
    server.script([cutAnthropic, whole, anthropicText('done')])
    server.requests.length = 0
    const ran: unknown[] = []
    const agent = Agent.create({ provider: loopback.anthropic() })
      .tool(refundTool(ran))
      .reliability({ postDecide: [retryTruncated()] })
      .build()
    const result = await agent.runDetailed('refund order 42 for $50')
    expect(result.text).toBe('done')
    expect(ran).toEqual([{ orderId: '42', amount: 50 }])
    expect(server.requests).toHaveLength(3)
  })
})

describe("OpenAI's legacy function_call", () => {
  const lookup = (ran: unknown[]) =>
    tool({
      name: 'lookup',
      description: 'find an order',
      input: Type.Object({ orderId: Type.String() }),
      execute: (args) => (ran.push(args), 'shipped'),
    })
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const legacy: readonly (readonly [string, Reply])[] = [
    ['a completion', openaiCompletion({ role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"orderId":"42"}' } }, 'function_call')],
    [
      'a stream',
      {
        kind: 'sse',
        frames: [
          chunk({ role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '' } }),
          chunk({ function_call: { arguments: '{"orderId"' } }),
          chunk({ function_call: { arguments: ':"42"}' } }),
          chunk({}, 'function_call'),
          'data: [DONE]\n\n',
        ],
      },
    ],
  ]

  it.each(legacy)('in %s is the tool call it holds, run once, never an empty final answer', async (what, reply) => {
    server.script([reply, what === 'a stream' ? openaiSse('shipped today') : openaiText('shipped today')])
    server.requests.length = 0
    const ran: unknown[] = []
    const agent = Agent.create({ provider: loopback.openai() }).tool(lookup(ran)).build()
    const result = what === 'a stream' ? await agent.stream('where is order 42?').result : await agent.runDetailed('where is order 42?')
    expect(result.text).toBe('shipped today')
    expect(ran).toEqual([{ orderId: '42' }])
    // The call goes back in today's shape: the assistant's tool call and the tool result under one id.
    const [assistant, answer] = (server.requests[1]?.body.messages as any[] | undefined)?.slice(-2) ?? []
    expect(assistant.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'lookup', arguments: '{"orderId":"42"}' } })
    expect(answer).toMatchObject({ role: 'tool', tool_call_id: assistant.tool_calls[0].id, content: 'shipped' })
  })
})
