import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createGateway as createGatewayV6 } from 'ai-v6'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, retryTransient, type Provider } from '../../src/index.ts'
import { aiSdk, type AiSdkLanguageModel } from '../../src/providers/ai-sdk/index.ts'
import { callSdk } from '../../src/providers/adapter-kit/sdk-call.ts'
import { anthropicError, anthropicSse, anthropicText } from '../adapters/support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from '../adapters/support/loopback-server.ts'
import { loopbackProviders } from '../adapters/support/loopback-providers.ts'
import { openaiError, openaiSse, openaiText } from '../adapters/support/openai-wire.ts'
import { PROXY_413, rejection } from '../adapters/support/rejection-bodies.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const loopback = loopbackProviders(() => server)
const ask = { messages: [{ role: 'user' as const, content: 'is order 42 refunded?' }] }

/** Each adapter over its official client, the error it answers with and the answer after it. */
const wires: readonly (readonly [string, () => Provider, (status: number) => Reply, Reply])[] = [
  ['openai', loopback.openai, (status) => openaiError(status, {}, 'invalid_request_error'), openaiText('yes')],
  ['anthropic', loopback.anthropic, (status) => anthropicError(status, 'api_error'), anthropicText('yes')],
  [
    '@ai-sdk/openai',
    () => aiSdk(createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k' }).chat('gpt-test')),
    (status) => openaiError(status, {}, 'invalid_request_error'),
    openaiText('yes'),
  ],
  [
    '@ai-sdk/anthropic',
    () => aiSdk(createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'k' })('claude-test')),
    (status) => anthropicError(status, 'api_error'),
    anthropicText('yes'),
  ],
]

describe('Provider adapters on a 409', () => {
  // The openai, Anthropic and AI SDK clients all retry a 409 (a lock timeout): it is transient, never unknown.
  it.each(wires)('%s: kind timeout, with its status', async (_name, provider, error) => {
    server.script([error(409)])
    await expect(provider().complete(ask)).rejects.toMatchObject({ kind: 'timeout', status: 409 })
  })

  it.each(wires)('%s: retryTransient asks again and takes the answer', async (_name, provider, error, answer) => {
    server.script([error(409), answer])
    const gate = createGate({ providers: provider(), postDecide: [retryTransient({ maxRetries: 1, backoff: () => 0 })] })
    const result = await gate.run(ask)
    expect(result.response.content).toBe('yes')
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['timeout', 'ok'])
  })
})

describe('Provider adapters on a 429 asking for a wait longer than a timer holds', () => {
  const longest = 2 ** 31 - 1
  const asks: readonly (readonly [string, Record<string, string>])[] = [
    ['retry-after in seconds past 2^31 ms', { 'retry-after': '1e10' }],
    ['retry-after as a date in the year 9999', { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' }],
    ['retry-after-ms past 2^31', { 'retry-after-ms': '5000000000' }],
  ]
  it.each(asks)('%s: kind rate-limit with the longest wait a timer holds, never a longer one', async (_name, headers) => {
    for (const [adapter, provider, error] of wires) {
      const reply = error(429)
      server.script([{ ...reply, headers } as Reply])
      const failure = await provider()
        .complete(ask)
        .catch((e: unknown) => e)
      expect(failure, adapter).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: longest })
    }
  })

  it('retryTransient refuses that wait instead of retrying at once', async () => {
    server.script([openaiError(429, { 'retry-after': '1e10' }, 'rate_limit_exceeded'), openaiText('yes')])
    server.requests.length = 0
    const gate = createGate({ providers: loopback.openai(), postDecide: [retryTransient({ maxRetries: 1, maxRetryAfterMs: longest - 1 })] })
    await expect(gate.run(ask)).rejects.toMatchObject({ kind: 'rate-limit' })
    expect(server.requests).toHaveLength(1)
  })
})

describe('Provider adapters on an error event in the middle of a stream', () => {
  const openaiChunk = (content: string) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`
  const openaiBroken: Reply = {
    kind: 'sse',
    frames: [
      openaiChunk('The refund'),
      `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error', code: null } })}\n\n`,
    ],
  }
  const anthropicStart = `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'c', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 9, output_tokens: 1 } } })}\n\n`
  const anthropicBroken: Reply = {
    kind: 'sse',
    frames: [anthropicStart, `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`],
  }

  it.each([
    ['openai', loopback.openai, openaiBroken, 'The server had an error'],
    ['@ai-sdk/openai', wires[2]?.[1] as () => Provider, openaiBroken, 'The server had an error'],
    ['anthropic', loopback.anthropic, anthropicBroken, 'Overloaded'],
    ['@ai-sdk/anthropic', wires[3]?.[1] as () => Provider, anthropicBroken, 'Overloaded'],
  ] as const)("%s: kind http-5xx, with the provider's own message", async (_name, provider, reply, said) => {
    server.script([reply])
    const gate = createGate({ providers: provider() })
    const failure = await gate.stream(ask, { mode: 'buffer' }).result.catch((e: unknown) => e)
    expect(failure).toMatchObject({ name: 'ReliabilityFailFastError', kind: 'http-5xx' })
    const cause = (failure as { attempts: readonly { error?: Error }[] }).attempts[0]?.error
    expect(cause?.message).toContain(said)
    expect(cause?.message).not.toContain('[object Object]')
  })
})

describe('callSdk on a thrown value that cannot be read', () => {
  const unreadable = new Proxy(
    {},
    {
      get() {
        throw new Error('trap')
      },
      getPrototypeOf() {
        return Object.prototype
      },
    },
  )

  it.each([
    ['an object without a prototype', Object.create(null)],
    ['a proxy whose every read throws', unreadable],
  ])('%s: a ProviderError of kind unknown, never a raw TypeError', async (_what, thrown) => {
    const failure = await callSdk('openai', ask, () => Promise.reject(thrown)).catch((e: unknown) => e)
    expect(failure).toMatchObject({ name: 'ProviderError', kind: 'unknown', provider: 'openai' })
  })
})

describe('Provider adapters on a request refusing the structured-output field itself', () => {
  // A model without structured outputs (OpenAI's o1-mini) names response_format with code unsupported_parameter.
  const o1 = rejection(400, {
    error: {
      message: "Unsupported parameter: 'response_format' is not supported with this model.",
      type: 'invalid_request_error',
      param: 'response_format',
      code: 'unsupported_parameter',
    },
  })
  // An Anthropic API (or model) without structured outputs refuses the field by its path.
  const noFormat = rejection(400, { type: 'error', error: { type: 'invalid_request_error', message: 'output_config.format: Extra inputs are not permitted' } })
  const refundAsk = { messages: [{ role: 'user' as const, content: 'refund order 42 for $50' }] }

  it('openai: kind schema-rejected, so the gate demotes the mode (json, then the prompt) instead of failing fast', async () => {
    server.script([o1, o1, openaiText(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({ providers: loopback.openai(), outputSchema: Refund, outputMode: 'auto' })
    const result = await gate.run(refundAsk)
    expect(result.value).toEqual(validRefund)
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['schema-rejected', 'schema-rejected', 'ok'])
    expect(server.requests.map((r) => r.body.response_format?.type ?? 'none')).toEqual(['json_schema', 'json_object', 'none'])
  })

  it('anthropic: kind schema-rejected, so the gate sends the schema in the prompt instead of failing fast', async () => {
    server.script([noFormat, anthropicText(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({ providers: loopback.anthropic(), outputSchema: Refund, outputMode: 'auto' })
    const result = await gate.run(refundAsk)
    expect(result.value).toEqual(validRefund)
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['schema-rejected', 'ok'])
    expect(server.requests[0]?.body.output_config?.format).toBeDefined()
    expect(server.requests[1]?.body.output_config).toBeUndefined()
  })

  it.each([
    ['openai', () => loopback.openai()],
    ['@ai-sdk/openai', wires[2]?.[1] as () => Provider],
  ] as const)("%s: Azure OpenAI's 'Unrecognized request argument' is kind unsupported-parameter", async (_name, provider) => {
    server.script([
      rejection(400, { error: { message: 'Unrecognized request argument supplied: stream_options', type: 'invalid_request_error', param: null, code: null } }),
    ])
    await expect(provider().complete(ask)).rejects.toMatchObject({ kind: 'unsupported-parameter', status: 400 })
  })
})

describe('The AI SDK gateway on an error body that is not its own', () => {
  const gateways: readonly (readonly [string, () => Provider])[] = [
    ['ai 7', loopback.gateway],
    ['ai 6', () => aiSdk(createGatewayV6({ baseURL: server.url, apiKey: 'k' })('openai/gpt-test') as AiSdkLanguageModel)],
  ]
  const html = (status: number): Reply => ({ kind: 'raw', status, contentType: 'text/html', body: `<html><body><h1>${status}</h1></body></html>` })

  // The gateway wraps them all in a GatewayResponseError; the status and the transport's error under it say what happened.
  it.each(
    gateways.flatMap(([version, provider]) =>
      [
        ["an edge proxy's 413 page", PROXY_413, 'payload-too-large', 413],
        ["an edge proxy's 502 page", html(502), 'http-5xx', 502],
        ['an empty 503', { kind: 'raw', status: 503, contentType: 'text/plain', body: '' } as Reply, 'http-5xx', 503],
        ['a reset connection', { kind: 'reset' } as Reply, 'network', undefined],
        ['a 200 HTML page', html(200), 'malformed-response', 200],
      ].map(([what, reply, kind, status]) => [version, what, kind, provider, reply, status] as const),
    ),
  )('%s, %s: kind %s', async (_version, _what, kind, provider, reply, status) => {
    server.script([reply as Reply])
    const failure = await provider()
      .complete(ask)
      .catch((e: unknown) => e)
    expect(failure).toMatchObject({ name: 'ProviderError', kind })
    expect((failure as { status?: number }).status).toBe(status)
  })

  it('a 413 is never sent again by retryTransient', async () => {
    server.script([PROXY_413, openaiText('never asked')])
    server.requests.length = 0
    const gate = createGate({ providers: loopback.gateway(), postDecide: [retryTransient({ maxRetries: 2, backoff: () => 0 })] })
    await expect(gate.run(ask)).rejects.toMatchObject({ kind: 'payload-too-large' })
    expect(server.requests).toHaveLength(1)
  })
})

describe('Provider adapters on a stream reset by the network', () => {
  const answer = 'The refund of order 42 is approved and on its way.'
  const streams: readonly (readonly [string, () => Provider, Reply])[] = [
    ['openai', loopback.openai, openaiSse(answer)],
    ['anthropic', loopback.anthropic, anthropicSse(answer)],
    ['@ai-sdk/openai', wires[2]?.[1] as () => Provider, openaiSse(answer)],
    ['@ai-sdk/anthropic', wires[3]?.[1] as () => Provider, anthropicSse(answer)],
  ]
  const cut = (reply: Reply): Reply => ({ kind: 'sse', frames: reply.kind === 'sse' ? reply.frames.slice(0, 4) : [], frameDelayMs: 20, reset: true })

  it.each(streams)('%s: kind network, and retryTransient delivers only the whole answer', async (_name, provider, reply) => {
    server.script([cut(reply), reply])
    const gate = createGate({ providers: provider(), postDecide: [retryTransient({ maxRetries: 1, backoff: () => 0 })] })
    const result = await gate.stream(ask, { mode: 'buffer' }).result
    expect(result.response.content).toBe(answer)
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['network', 'ok'])
  })
})
