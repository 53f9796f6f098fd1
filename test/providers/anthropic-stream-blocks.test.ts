import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, createGate, tool } from '../../src/index.ts'
import { anthropicSse } from '../adapters/support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from '../adapters/support/loopback-server.ts'
import { loopbackProviders } from '../adapters/support/loopback-providers.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const loopback = loopbackProviders(() => server)
const sse = (events: readonly { readonly type: string; readonly [field: string]: unknown }[]): Reply => ({
  kind: 'sse',
  frames: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`),
})
const start = {
  type: 'message_start',
  message: { id: 'm', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage: { input_tokens: 9, output_tokens: 1 } },
}
const end = (stop: string) => [{ type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 3 } }, { type: 'message_stop' }]

// The API starts every block empty and sends its content as deltas; a proxy that re-streams a whole
// message may start a block with its content instead, which the SDK's own accumulator reads.
describe('Anthropic stream on blocks that start with their content', () => {
  it('keeps the text a text block started with', async () => {
    server.script([
      sse([
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Order 42 ' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'is on its way.' } },
        { type: 'content_block_stop', index: 0 },
        ...end('end_turn'),
      ]),
    ])
    const run = createGate({ providers: loopback.anthropic() }).stream({ messages: [{ role: 'user', content: 'where is order 42?' }] })
    const result = await run.result
    expect(result.response.content).toBe('Order 42 is on its way.')
  })

  it('runs a tool call with the input its block started with, when no input delta follows', async () => {
    server.script([
      sse([
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'track', input: { orderId: '42' } } },
        { type: 'content_block_stop', index: 0 },
        ...end('tool_use'),
      ]),
      anthropicSse('on its way'),
    ])
    const ran: unknown[] = []
    const track = tool({
      name: 'track',
      description: 'track an order',
      input: Type.Object({ orderId: Type.String() }),
      execute: (a) => (ran.push(a), 'shipped'),
    })
    const result = await Agent.create({ provider: loopback.anthropic() }).tool(track).build().stream('where is order 42?').result
    expect(result.text).toBe('on its way')
    expect(ran).toEqual([{ orderId: '42' }])
  })
})
