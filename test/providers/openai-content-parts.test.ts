import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate } from '../../src/index.ts'
import { startLoopback, type LoopbackServer, type Reply } from '../adapters/support/loopback-server.ts'
import { loopbackProviders } from '../adapters/support/loopback-providers.ts'
import { openaiCompletion } from '../adapters/support/openai-wire.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const loopback = loopbackProviders(() => server)
const ask = { messages: [{ role: 'user' as const, content: 'refund order 42 for $50' }] }
// An OpenAI-compatible server (Mistral's reasoning models) answers content as parts: its thinking, then the text.
const thinking = { type: 'thinking', thinking: [{ type: 'text', text: 'The order is eligible.' }] }
const half = Math.floor(validRefundJson.length / 2)
const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

describe('OpenAI adapter on content sent as an array of parts', () => {
  it('reads the text parts of a completion as the answer, never an empty one', async () => {
    server.script([
      openaiCompletion(
        {
          role: 'assistant',
          content: [thinking, { type: 'text', text: validRefundJson.slice(0, half) }, { type: 'text', text: validRefundJson.slice(half) }],
        },
        'stop',
      ),
    ])
    const result = await createGate({ providers: loopback.openai(), outputSchema: Refund }).run(ask)
    expect(result.value).toEqual(validRefund)
    expect(result.response.content).toBe(validRefundJson)
  })

  it('reads the text parts of stream deltas, streamed as they come', async () => {
    const reply: Reply = {
      kind: 'sse',
      frames: [
        chunk({ role: 'assistant', content: [thinking] }),
        chunk({ content: [{ type: 'text', text: validRefundJson.slice(0, half) }] }),
        chunk({ content: [{ type: 'text', text: validRefundJson.slice(half) }] }),
        chunk({}, 'stop'),
        'data: [DONE]\n\n',
      ],
    }
    server.script([reply])
    const run = createGate({ providers: loopback.openai(), outputSchema: Refund }).stream(ask, { mode: 'buffer' })
    const result = await run.result
    expect(result.value).toEqual(validRefund)
    expect(result.response.content).toBe(validRefundJson)
  })
})
