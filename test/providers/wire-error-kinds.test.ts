import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, retryTransient, type Provider } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropicError, anthropicText } from '../adapters/support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from '../adapters/support/loopback-server.ts'
import { loopbackProviders } from '../adapters/support/loopback-providers.ts'
import { openaiError, openaiText } from '../adapters/support/openai-wire.ts'

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
