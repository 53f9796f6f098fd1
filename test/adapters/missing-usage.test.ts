import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, memoryStore, sharedBudget, type GateResult, type Provider } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { anthropicMessage } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'
import { openaiSse, openaiText } from './support/openai-wire.ts'

let server: LoopbackServer
// 400 characters of request: 100 tokens at 4 characters per token.
const messages = [{ role: 'user' as const, content: 'x'.repeat(400) }]
// 80 characters of answer: 20 tokens.
const answer = 'y'.repeat(80)
const pricing = { 'm-1': { input: 1, output: 1 } }

const openaiProvider = (): Provider => openai({ client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0, timeout: 5_000 }), model: 'm-1' })
const anthropicProvider = (): Provider =>
  anthropic({ client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0, timeout: 5_000 }), model: 'm-1' })
const aiSdkProvider = (): Provider => aiSdk(createGateway({ baseURL: server.url, apiKey: 'k' })('m-1'))

beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

/** Runs one gate call (or stream) on `provider` against `reply`, priced at $1 per million tokens each way. */
async function runOn(provider: Provider, reply: Reply, streamed = false): Promise<GateResult<unknown>> {
  server.script([reply])
  const gate = createGate({ providers: provider, model: 'm-1', pricing })
  return streamed ? await gate.stream({ messages }).result : await gate.run({ messages })
}

/** A reply's JSON body with one field removed or replaced. */
function withBody(reply: Reply, change: (body: Record<string, unknown>) => void): Reply {
  const body = structuredClone((reply as { body: Record<string, unknown> }).body)
  change(body)
  return { kind: 'json', body }
}

const openaiChunk = (o: unknown): string =>
  `data: ${JSON.stringify({ id: 'c', created: 1, model: 'm-1', object: 'chat.completion.chunk', ...(o as object) })}\n\n`

describe('adapters: a missing usage is estimated, never $0', () => {
  it('estimates an OpenAI completion without usage from the request and the answer', async () => {
    const result = await runOn(
      openaiProvider(),
      withBody(openaiText(answer), (b) => delete b['usage']),
    )
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 20, estimated: true })
    expect(result.costUsd).toBeCloseTo(120 / 1e6, 12)
    expect(result.attempts[0]?.usage.estimated).toBe(true)
  })

  it('keeps the counts an OpenAI usage has and estimates the one it lacks', async () => {
    const result = await runOn(
      openaiProvider(),
      withBody(openaiText(answer), (b) => {
        b['usage'] = { prompt_tokens: 300 }
      }),
    )
    expect(result.usage).toEqual({ inputTokens: 300, outputTokens: 20, estimated: true })
  })

  it('estimates an OpenAI stream that ends without its usage chunk', async () => {
    const frames = (openaiSse(answer) as { readonly frames: readonly string[] }).frames.filter((f) => !f.includes('"usage"'))
    const result = await runOn(openaiProvider(), { kind: 'sse', frames }, true)
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 20, estimated: true })
    expect(result.costUsd).toBeGreaterThan(0)
  })

  it('estimates an OpenAI stream whose usage chunk holds null counts', async () => {
    const frames = [
      openaiChunk({ choices: [{ index: 0, delta: { role: 'assistant', content: answer }, finish_reason: 'stop' }] }),
      openaiChunk({ choices: [], usage: { prompt_tokens: null, completion_tokens: null } }),
      'data: [DONE]\n\n',
    ]
    const result = await runOn(openaiProvider(), { kind: 'sse', frames }, true)
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 20, estimated: true })
  })

  it('estimates an Anthropic message without usage', async () => {
    const result = await runOn(
      anthropicProvider(),
      withBody(anthropicMessage([{ type: 'text', text: answer }]), (b) => delete b['usage']),
    )
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 20, estimated: true })
    expect(result.costUsd).toBeGreaterThan(0)
  })

  it('keeps Anthropic input and cache counts and estimates a missing output count', async () => {
    const result = await runOn(
      anthropicProvider(),
      anthropicMessage([{ type: 'text', text: answer }], 'end_turn', { input_tokens: 40, cache_read_input_tokens: 30 }),
    )
    expect(result.usage).toEqual({ inputTokens: 40, outputTokens: 20, cacheReadTokens: 30, estimated: true })
  })

  it('estimates the output of an Anthropic stream whose message_delta has no usage', async () => {
    const sse = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
    const frames = [
      sse('message_start', {
        message: {
          id: 'm',
          type: 'message',
          role: 'assistant',
          model: 'm-1',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 40, output_tokens: 1 },
        },
      }),
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: answer } }),
      sse('content_block_stop', { index: 0 }),
      sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null } }),
      sse('message_stop', {}),
    ]
    const result = await runOn(anthropicProvider(), { kind: 'sse', frames }, true)
    expect(result.usage).toEqual({ inputTokens: 40, outputTokens: 20, estimated: true })
  })

  it('estimates an AI SDK result without usage', async () => {
    const result = await runOn(aiSdkProvider(), {
      kind: 'json',
      body: { content: [{ type: 'text', text: answer }], finishReason: { unified: 'stop', raw: 'stop' }, warnings: [] },
    })
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 20, estimated: true })
    expect(result.costUsd).toBeGreaterThan(0)
  })

  it('estimates the AI SDK counts a provider left undefined', async () => {
    const usage = { inputTokens: { total: 60 }, outputTokens: {} }
    const result = await runOn(aiSdkProvider(), {
      kind: 'json',
      body: { content: [{ type: 'text', text: answer }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    })
    expect(result.usage).toEqual({ inputTokens: 60, outputTokens: 20, estimated: true })
  })

  it('takes a complete usage as it is, not estimated', async () => {
    const result = await runOn(openaiProvider(), openaiText(answer, { prompt_tokens: 7, completion_tokens: 3 }))
    expect(result.usage).toEqual({ inputTokens: 7, outputTokens: 3 })
  })

  it('charges a shared budget for an answer without usage', async () => {
    server.script([withBody(openaiText(answer), (b) => delete b['usage'])])
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1 })
    const gate = createGate({ providers: openaiProvider(), model: 'm-1', pricing, budget })
    await gate.run({ messages })
    expect(await budget.spent()).toBeCloseTo(120 / 1e6, 12)
  })
})
