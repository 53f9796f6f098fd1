import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ModelResponse } from '../../src/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
const chunk = (delta: unknown, finish: string | null = null) =>
  frame({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })
const sse = (...deltas: unknown[]): Reply => ({ kind: 'sse', frames: [...deltas.map((d) => chunk(d)), chunk({}, 'tool_calls'), 'data: [DONE]\n\n'] })
const call = (index: number, fn: Record<string, string>, id?: string) => ({
  tool_calls: [{ index, ...(id !== undefined ? { id, type: 'function' } : {}), function: fn }],
})

async function streamed(reply: Reply): Promise<ModelResponse | undefined> {
  server.script([reply])
  const provider = openai({ client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0 }), model: 'gpt-test' })
  let response: ModelResponse | undefined
  for await (const c of provider.stream({ messages: [{ role: 'user', content: 'go' }] })) if (c.type === 'done') response = c.response
  return response
}

describe('openai streamed tool calls', () => {
  it('takes the function name once per index, even when a server repeats it in every delta', async () => {
    const response = await streamed(
      sse(
        call(0, { name: 'lookup', arguments: '' }, 'call_1'),
        call(0, { name: 'lookup', arguments: '{"orderId"' }),
        call(0, { name: 'lookup', arguments: ':"42"}' }),
      ),
    )
    expect(response?.toolCalls).toEqual([{ id: 'call_1', name: 'lookup', args: { orderId: '42' } }])
  })

  it('keeps the first id of an index when a later delta repeats another', async () => {
    const response = await streamed(sse(call(0, { name: 'lookup', arguments: '{}' }, 'call_1'), call(0, { arguments: '' }, 'call_1b')))
    expect(response?.toolCalls.map((c) => c.id)).toEqual(['call_1'])
  })

  it('assembles parallel calls whose deltas interleave, each with its own name and arguments', async () => {
    const response = await streamed(
      sse(
        call(0, { name: 'lookup', arguments: '' }, 'call_a'),
        call(1, { name: 'refund', arguments: '' }, 'call_b'),
        call(0, { arguments: '{"orderId":"1"}' }),
        call(1, { arguments: '{"amount":5}' }),
      ),
    )
    expect(response?.toolCalls).toEqual([
      { id: 'call_a', name: 'lookup', args: { orderId: '1' } },
      { id: 'call_b', name: 'refund', args: { amount: 5 } },
    ])
    expect(response?.stopReason).toBe('tool_use')
  })

  it('keeps parallel calls apart when a server leaves index out, each whole in its delta or continued without an id', async () => {
    const response = await streamed(
      sse(
        { tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"orderId"' } }] },
        { tool_calls: [{ function: { arguments: ':"1"}' } }] },
        { tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'refund', arguments: '{"amount":5}' } }] },
      ),
    )
    expect(response?.toolCalls).toEqual([
      { id: 'call_a', name: 'lookup', args: { orderId: '1' } },
      { id: 'call_b', name: 'refund', args: { amount: 5 } },
    ])
  })
})
