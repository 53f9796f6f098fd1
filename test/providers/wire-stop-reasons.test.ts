import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, type Provider } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropicSse, anthropicText } from '../adapters/support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from '../adapters/support/loopback-server.ts'
import { loopbackProviders } from '../adapters/support/loopback-providers.ts'
import { openaiSse } from '../adapters/support/openai-wire.ts'

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
