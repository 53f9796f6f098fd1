import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import AnthropicV0 from 'anthropic-sdk-v0'
import { createGateway as createGatewayV6 } from 'ai-v6'
import OpenAI from 'openai'
import OpenAIv4 from 'openai-v4'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, strictOutputRules, type Provider } from '../../src/index.ts'
import { aiSdk, type AiSdkLanguageModel } from '../../src/providers/ai-sdk/index.ts'
import { anthropic, type AnthropicMessagesClient } from '../../src/providers/anthropic/index.ts'
import { openai, type OpenAIChatClient } from '../../src/providers/openai/index.ts'
import { failoverRule, retryTransient } from '../../src/rules/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { gatewaySse, gatewayText } from './support/ai-sdk-wire.ts'
import { anthropicSse, anthropicText } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'
import { openaiSse, openaiText } from './support/openai-wire.ts'
import { providerFailure } from './support/provider-failure.ts'

interface Wire {
  readonly name: string
  readonly provider: (server: LoopbackServer) => Provider
  readonly valid: Reply
}

const wires: readonly Wire[] = [
  {
    name: 'openai',
    provider: (s) => openai({ client: new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'k', maxRetries: 0 }), model: 'gpt-test' }),
    valid: openaiText(validRefundJson),
  },
  {
    name: 'anthropic',
    provider: (s) => anthropic({ client: new Anthropic({ baseURL: s.url, apiKey: 'k', maxRetries: 0 }), model: 'claude-test' }),
    valid: anthropicText(validRefundJson),
  },
  { name: 'ai-sdk', provider: (s) => aiSdk(createGateway({ baseURL: s.url, apiKey: 'k' })('openai/gpt-test')), valid: gatewayText(validRefundJson) },
  // The oldest supported versions of each SDK read bodies differently (node-fetch, specification v3).
  {
    name: 'openai (openai 4)',
    provider: (s) => openai({ client: new OpenAIv4({ baseURL: `${s.url}/v1`, apiKey: 'k', maxRetries: 0 }) as unknown as OpenAIChatClient, model: 'gpt-test' }),
    valid: openaiText(validRefundJson),
  },
  {
    name: 'anthropic (@anthropic-ai/sdk 0.40)',
    provider: (s) =>
      anthropic({ client: new AnthropicV0({ baseURL: s.url, apiKey: 'k', maxRetries: 0 }) as unknown as AnthropicMessagesClient, model: 'claude-test' }),
    valid: anthropicText(validRefundJson),
  },
  {
    name: 'ai-sdk (ai 6)',
    provider: (s) => aiSdk(createGatewayV6({ baseURL: s.url, apiKey: 'k' })('openai/gpt-test') as AiSdkLanguageModel),
    valid: gatewayText(validRefundJson),
  },
]

const html: Reply = { kind: 'raw', status: 200, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }
const bodies: readonly { readonly what: string; readonly reply: Reply }[] = [
  { what: 'an HTML page', reply: html },
  { what: 'an empty JSON body', reply: { kind: 'raw', status: 200, contentType: 'application/json', body: '' } },
  { what: 'an empty text body', reply: { kind: 'raw', status: 200, contentType: 'text/plain', body: '' } },
  { what: 'a JSON object of another shape', reply: { kind: 'json', body: { unexpected: true } } },
  { what: 'JSON null', reply: { kind: 'raw', status: 200, contentType: 'application/json', body: 'null' } },
  { what: 'a truncated JSON body', reply: { kind: 'raw', status: 200, contentType: 'application/json', body: '{"id": "x", "content": [' } },
]

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const base = [{ role: 'user' as const, content: 'refund order #42 for $50' }]

describe.each(wires)('$name adapter on a 200 that is not an answer', (wire) => {
  it.each(bodies)('reports $what as kind malformed-response', async ({ reply }) => {
    server.script([reply])
    const error = await providerFailure(wire.provider(server).complete({ messages: base }))
    expect(error.kind).toBe('malformed-response')
    expect(error.provider).toBe(wire.provider(server).name)
  })

  it('lets retryTransient retry it, without feedback about an answer never given', async () => {
    server.script([html, wire.valid])
    server.requests.length = 0
    const gate = createGate({
      providers: wire.provider(server),
      outputSchema: Refund,
      postDecide: [retryTransient({ maxRetries: 2, backoff: () => 0 }), ...strictOutputRules(3)],
    })
    const failed: number[] = []
    gate.on('validation_failed', (e) => failed.push(e.attempt))
    const result = await gate.run({ messages: base })
    expect(result.value).toEqual(validRefund)
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['malformed-response', 'ok'])
    expect(failed).toEqual([])
    expect(server.requests).toHaveLength(2)
    // The retry is the same request: no echo of an empty answer, no schema feedback.
    expect(JSON.stringify(server.requests[1]?.body)).toBe(JSON.stringify(server.requests[0]?.body))
  })

  it('lets failoverRule switch to the next provider', async () => {
    server.script([html, wire.valid])
    server.requests.length = 0
    const gate = createGate({
      providers: [wire.provider(server), wire.provider(server)],
      outputSchema: Refund,
      postDecide: [failoverRule(), ...strictOutputRules(3)],
    })
    const result = await gate.run({ messages: base })
    expect(result.attempts.map((a) => [a.errorKind, a.decision])).toEqual([
      ['malformed-response', 'retry-other'],
      ['ok', 'ok'],
    ])
  })

  it('fails fast as malformed-response when no rule retries it, after one request', async () => {
    server.script([{ kind: 'json', body: { unexpected: true } }, wire.valid])
    server.requests.length = 0
    const gate = createGate({ providers: wire.provider(server), outputSchema: Refund, postDecide: strictOutputRules(3) })
    await expect(gate.run({ messages: base })).rejects.toMatchObject({ kind: 'malformed-response' })
    expect(server.requests).toHaveLength(1)
  })
})

const sseWires: readonly { readonly name: string; readonly provider: (server: LoopbackServer) => Provider }[] = wires

describe.each(sseWires)('$name adapter on a stream that is not of its format', (wire) => {
  const streamOf = async (provider: Provider) => {
    for await (const _ of provider.stream?.({ messages: base }) ?? []) void _
  }

  it.each([
    { what: 'an HTML page', reply: html },
    { what: 'SSE frames of another shape', reply: { kind: 'sse', frames: ['data: {"unexpected": true}\n\n', 'data: [DONE]\n\n'] } as Reply },
  ])('reports $what as kind malformed-response instead of an empty answer', async ({ reply }) => {
    server.script([reply])
    const error = await providerFailure(streamOf(wire.provider(server)))
    expect(error.kind).toBe('malformed-response')
  })
})

/** Each wire's SSE answer, by the adapter's name. */
const answers: Readonly<Record<string, (text: string) => Reply>> = {
  openai: (text) => openaiSse(text),
  anthropic: (text) => anthropicSse(text),
  'ai-sdk': (text) => gatewaySse(text),
}
const answerOf = (name: string) => answers[name.split(' ')[0] as string] as (text: string) => Reply
const framesOf = (reply: Reply): readonly string[] => (reply.kind === 'sse' ? reply.frames : [])

describe.each(sseWires)('$name adapter on a stream cut before its end', (wire) => {
  const answer = 'The refund of order 42 is approved and on its way.'

  it('reports the part of an answer as kind malformed-response, never as a whole answer', async () => {
    const frames = framesOf(answerOf(wire.name)(answer))
    // A proxy that closes the response cleanly after a few deltas, before the finish and the end.
    server.script([{ kind: 'sse', frames: frames.slice(0, 5) }])
    const gate = createGate({ providers: wire.provider(server) })
    await expect(gate.stream({ messages: base }, { mode: 'buffer' }).result).rejects.toMatchObject({ kind: 'malformed-response' })
  })

  it('lets retryTransient ask again, and delivers only the whole answer', async () => {
    const full = answerOf(wire.name)(answer)
    server.script([{ kind: 'sse', frames: framesOf(full).slice(0, 5) }, full])
    const gate = createGate({ providers: wire.provider(server), postDecide: [retryTransient({ maxRetries: 1, backoff: () => 0 })] })
    const result = await gate.stream({ messages: base }, { mode: 'buffer' }).result
    expect(result.response.content).toBe(answer)
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['malformed-response', 'ok'])
  })
})

describe.each(sseWires.filter((w) => !w.name.startsWith('ai-sdk')))('$name adapter on deltas sent after the end of the answer', (wire) => {
  it('keeps them out of the answer', async () => {
    const answer = 'Approved.'
    const frames = framesOf(answerOf(wire.name)(answer))
    // A text delta frame written again after the finish (OpenAI) or after message_stop (Anthropic).
    const delta = frames.find((f) => f.includes('Appr')) as string
    const late = wire.name.startsWith('openai') ? [...frames.slice(0, -2), delta, ...frames.slice(-2)] : [...frames, delta]
    server.script([{ kind: 'sse', frames: late }])
    const result = await createGate({ providers: wire.provider(server) }).stream({ messages: base }, { mode: 'buffer' }).result
    expect(result.response.content).toBe(answer)
  })
})
