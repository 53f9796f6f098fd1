import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { classifyError, createGate, FailFastKinds, ProviderError, type Provider } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { failoverRule, retryTransient } from '../../src/rules/index.ts'
import { gatewayError } from './support/ai-sdk-wire.ts'
import { anthropicError, anthropicText } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer } from './support/loopback-server.ts'
import { openaiError } from './support/openai-wire.ts'
import { providerFailure } from './support/provider-failure.ts'

let server: LoopbackServer
const base = [{ role: 'user' as const, content: 'hello' }]
const openaiClient = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'wrong-key', maxRetries: 0, timeout: 5_000 })
const anthropicClient = () => new Anthropic({ baseURL: server.url, apiKey: 'wrong-key', maxRetries: 0, timeout: 5_000 })
const gatewayModel = () => createGateway({ baseURL: server.url, apiKey: 'wrong-key' })('openai/gpt-test')

beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

/** A provider that refuses the credentials (401) on every call, counting them. */
function deniedProvider(): Provider & { readonly calls: number } {
  let calls = 0
  return {
    name: 'denied',
    get calls() {
      return calls
    },
    complete: async () => {
      calls++
      throw new ProviderError('bad key', { kind: 'unknown', status: 401 })
    },
  }
}

describe('auth error kind', () => {
  it.each([401, 403])('maps an OpenAI %i to kind auth with its status', async (status) => {
    server.script([openaiError(status, {}, status === 401 ? 'invalid_request_error' : 'permission_denied')])
    const e = await providerFailure(openai({ client: openaiClient(), model: 'gpt-test' }).complete({ messages: base }))
    expect(e).toMatchObject({ kind: 'auth', status, provider: 'openai' })
  })

  it.each([
    [401, 'authentication_error'],
    [403, 'permission_error'],
  ])('maps an Anthropic %i (%s) to kind auth with its status', async (status, type) => {
    server.script([anthropicError(status, type)])
    const e = await providerFailure(anthropic({ client: anthropicClient(), model: 'claude-test' }).complete({ messages: base }))
    expect(e).toMatchObject({ kind: 'auth', status, code: type })
  })

  it.each([401, 403])('maps an AI SDK gateway %i to kind auth with its status', async (status) => {
    server.script([gatewayError(status, 'authentication_error')])
    const e = await providerFailure(aiSdk(gatewayModel()).complete({ messages: base }))
    expect(e).toMatchObject({ kind: 'auth', status })
  })

  it('reads the status of a ProviderError built without a kind', () => {
    expect(classifyError(new ProviderError('denied', { kind: 'unknown', status: 401 })).kind).toBe('auth')
    expect(classifyError(new ProviderError('forbidden', { kind: 'unknown', status: 403 })).kind).toBe('auth')
    // A kind the thrower chose stays, whatever the status.
    expect(classifyError(new ProviderError('x', { kind: 'rate-limit', status: 401 })).kind).toBe('rate-limit')
  })

  it('classifies auth error bodies and SDK classes that carry no status', () => {
    expect(classifyError({ error: { type: 'authentication_error' } }).kind).toBe('auth')
    expect(classifyError({ error: { code: 'invalid_api_key' } }).kind).toBe('auth')
    expect(classifyError(Object.assign(new Error('x'), { name: 'PermissionDeniedError' })).kind).toBe('auth')
  })

  it('is never retried by retryTransient and fails fast with kind auth', async () => {
    server.script([openaiError(401, {}, 'invalid_request_error'), openaiError(401, {}, 'invalid_request_error')])
    server.requests.length = 0
    const gate = createGate({ providers: openai({ client: openaiClient(), model: 'gpt-test' }), postDecide: [retryTransient({ maxRetries: 3 })] })
    await expect(gate.run({ messages: base })).rejects.toMatchObject({ name: 'ReliabilityFailFastError', kind: FailFastKinds.Auth })
    expect(server.requests).toHaveLength(1)
  })

  it('is never retried on the same provider, even by a rule of yours or retryTransient given the kind: the run fails fast with kind auth after one call', async () => {
    const retryAuth = { when: (s: { errorKind: string }) => s.errorKind === 'auth', then: 'retry' as const, kind: 'retry-auth' }
    for (const postDecide of [[retryAuth], [retryTransient({ kinds: ['auth'] })]]) {
      const denied = deniedProvider()
      const gate = createGate({ providers: denied, postDecide })
      await expect(gate.run({ messages: base })).rejects.toMatchObject({ kind: FailFastKinds.Auth, reason: /never retried on the same provider/ })
      expect(denied.calls).toBe(1)
    }
  })

  it('fails over to the next provider with failoverRule() by default', async () => {
    server.script((request) => (request.url.startsWith('/v1/chat') ? openaiError(401, {}, 'invalid_request_error') : anthropicText('from the backup')))
    const primary: Provider = openai({ client: openaiClient(), model: 'gpt-test' })
    const backup: Provider = anthropic({ client: anthropicClient(), model: 'claude-test' })
    const gate = createGate({ providers: [primary, backup], postDecide: [retryTransient(), failoverRule()] })
    const result = await gate.run({ messages: base })
    expect(result.response.content).toBe('from the backup')
    expect(result.attempts.map((a) => [a.provider, a.errorKind])).toEqual([
      ['openai', 'auth'],
      ['anthropic', 'ok'],
    ])
  })

  it('counts refused credentials as breaker failures, as unknown errors were', async () => {
    const denied = deniedProvider()
    const gate = createGate({ providers: denied, breaker: { failureThreshold: 1, cooldownMs: 60_000 } })
    await expect(gate.run({ messages: base })).rejects.toMatchObject({ kind: 'auth' })
    await expect(gate.run({ messages: base })).rejects.toMatchObject({ kind: 'circuit-open' })
    expect(denied.calls).toBe(1)
  })
})
