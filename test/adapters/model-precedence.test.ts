import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, createGate } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { failoverRule } from '../../src/rules/index.ts'
import { gatewayText } from './support/ai-sdk-wire.ts'
import { anthropicText } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer } from './support/loopback-server.ts'
import { openaiError, openaiText } from './support/openai-wire.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const openaiClient = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0 })
const anthropicClient = () => new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 })
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] }
const modelsSent = () => server.requests.map((r) => r.body.model)

describe('model precedence', () => {
  it("sends an adapter's own model, not the agent's default", async () => {
    server.script([anthropicText('hello')])
    server.requests.length = 0
    const agent = Agent.create({ provider: anthropic({ client: anthropicClient(), model: 'claude-own' }), model: 'gpt-4o-mini' }).build()
    await agent.run('hi')
    expect(modelsSent()).toEqual(['claude-own'])
  })

  it('asks each provider of a failover list for its own model, whatever the gate default', async () => {
    server.script([openaiError(503), anthropicText('hello')])
    server.requests.length = 0
    const gate = createGate({
      providers: [openai({ client: openaiClient(), model: 'gpt-own' }), anthropic({ client: anthropicClient(), model: 'claude-own' })],
      model: 'gpt-4o-mini',
      postDecide: [failoverRule()],
    })
    const result = await gate.run(ask)
    expect(modelsSent()).toEqual(['gpt-own', 'claude-own'])
    expect(result.attempts.map((a) => a.model)).toEqual(['gpt-own', 'claude-own'])
  })

  it("lets a provider entry's model win over the adapter's own", async () => {
    server.script([openaiText('hello')])
    server.requests.length = 0
    await createGate({ providers: [{ provider: openai({ client: openaiClient(), model: 'gpt-own' }), model: 'gpt-entry' }], model: 'gpt-default' }).run(ask)
    expect(modelsSent()).toEqual(['gpt-entry'])
  })

  it("keeps the adapter's own model over a request's model", async () => {
    server.script([openaiText('hello')])
    server.requests.length = 0
    await createGate({ providers: openai({ client: openaiClient(), model: 'gpt-own' }) }).run({ ...ask, model: 'gpt-request' })
    expect(modelsSent()).toEqual(['gpt-own'])
  })

  it("uses a request's model over the gate default for an adapter without one", async () => {
    server.script([openaiText('hello')])
    server.requests.length = 0
    await createGate({ providers: openai({ client: openaiClient() }), model: 'gpt-default' }).run({ ...ask, model: 'gpt-request' })
    expect(modelsSent()).toEqual(['gpt-request'])
  })

  it('falls back to the gate default for an adapter without a model', async () => {
    server.script([openaiText('hello')])
    server.requests.length = 0
    await createGate({ providers: openai({ client: openaiClient() }), model: 'gpt-default' }).run(ask)
    expect(modelsSent()).toEqual(['gpt-default'])
  })

  it('logs and prices an AI SDK model under its own id', async () => {
    server.script([gatewayText('hello')])
    const priced: (string | undefined)[] = []
    const gate = createGate({
      providers: aiSdk(createGateway({ baseURL: server.url, apiKey: 'k' })('openai/gpt-test')),
      model: 'gpt-4o-mini',
      priceUsage: (_usage, model) => {
        priced.push(model)
        return 0
      },
    })
    const result = await gate.run(ask)
    expect(result.attempts[0]?.model).toBe('openai/gpt-test')
    expect(priced).toEqual(['openai/gpt-test'])
  })
})
