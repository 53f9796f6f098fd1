import Anthropic from '@anthropic-ai/sdk'
import { createGateway, generateText, jsonSchema, tool, wrapLanguageModel } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Type } from 'typebox'
import { Agent, tool as agentTool, type ModelRequest, type Provider, type ToolChoice } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { gatewayText, gatewayToolCall } from './support/ai-sdk-wire.ts'
import { anthropicMessage, anthropicText } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'
import { loopbackProviders } from './support/loopback-providers.ts'
import { openaiText, openaiToolCalls } from './support/openai-wire.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const loopback = loopbackProviders(() => server)
const openaiProvider = loopback.openai
const anthropicProvider = loopback.anthropic
const gatewayModel = () => createGateway({ baseURL: server.url, apiKey: 'k' })('openai/gpt-test')
const gatewayProvider = () => aiSdk(gatewayModel())

const lookupSpec = { name: 'lookup', description: 'find an order', inputSchema: { type: 'object', properties: { orderId: { type: 'string' } } } }
const request = (toolChoice: ToolChoice | undefined, tools = [lookupSpec]): ModelRequest => ({
  messages: [{ role: 'user', content: 'where is order 42?' }],
  ...(tools.length > 0 ? { tools } : {}),
  ...(toolChoice !== undefined ? { toolChoice } : {}),
})

/** The JSON body the loopback server received for the one call made by `call`. */
async function bodyOf(reply: Reply, call: () => Promise<unknown>): Promise<Record<string, unknown>> {
  server.script([reply])
  server.requests.length = 0
  await call()
  expect(server.requests).toHaveLength(1)
  return server.requests[0]?.body as Record<string, unknown>
}

const CHOICES: readonly ToolChoice[] = ['auto', 'none', 'required', { tool: 'lookup' }]

describe('toolChoice on the OpenAI wire', () => {
  const wire = { auto: 'auto', none: 'none', required: 'required', lookup: { type: 'function', function: { name: 'lookup' } } }
  for (const choice of CHOICES) {
    const key = typeof choice === 'string' ? choice : 'lookup'
    it(`sends ${JSON.stringify(choice)} as tool_choice ${JSON.stringify(wire[key])}`, async () => {
      const body = await bodyOf(openaiText('ok'), () => openaiProvider().complete(request(choice)))
      expect(body.tool_choice).toEqual(wire[key])
    })
  }

  it('sends no tool_choice when the request has none, or has no tools', async () => {
    expect(await bodyOf(openaiText('ok'), () => openaiProvider().complete(request(undefined)))).not.toHaveProperty('tool_choice')
    expect(await bodyOf(openaiText('ok'), () => openaiProvider().complete(request('none', [])))).not.toHaveProperty('tool_choice')
  })
})

describe('toolChoice on the Anthropic wire', () => {
  const wire = { auto: { type: 'auto' }, none: { type: 'none' }, required: { type: 'any' }, lookup: { type: 'tool', name: 'lookup' } }
  for (const choice of CHOICES) {
    const key = typeof choice === 'string' ? choice : 'lookup'
    it(`sends ${JSON.stringify(choice)} as tool_choice ${JSON.stringify(wire[key])}`, async () => {
      const body = await bodyOf(anthropicText('ok'), () => anthropicProvider().complete(request(choice)))
      expect(body.tool_choice).toEqual(wire[key])
    })
  }

  it('sends no tool_choice when the request has none, or has no tools', async () => {
    expect(await bodyOf(anthropicText('ok'), () => anthropicProvider().complete(request(undefined)))).not.toHaveProperty('tool_choice')
    expect(await bodyOf(anthropicText('ok'), () => anthropicProvider().complete(request('auto', [])))).not.toHaveProperty('tool_choice')
  })
})

describe('toolChoice on the Anthropic wire with extended thinking', () => {
  const thinking = (type: string) =>
    anthropic({
      client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }),
      model: 'claude-test',
      extraBody: { thinking: type === 'disabled' ? { type } : { type, budget_tokens: 1024 } },
    })

  it('leaves out a choice that forces a tool, which the API refuses with thinking, and keeps auto and none', async () => {
    for (const choice of ['required', { tool: 'lookup' }] as const) {
      expect(await bodyOf(anthropicText('ok'), () => thinking('enabled').complete(request(choice)))).not.toHaveProperty('tool_choice')
    }
    expect((await bodyOf(anthropicText('ok'), () => thinking('enabled').complete(request('none')))).tool_choice).toEqual({ type: 'none' })
    expect((await bodyOf(anthropicText('ok'), () => thinking('adaptive').complete(request('auto')))).tool_choice).toEqual({ type: 'auto' })
  })

  it('sends a forced choice when thinking is disabled', async () => {
    expect((await bodyOf(anthropicText('ok'), () => thinking('disabled').complete(request({ tool: 'lookup' })))).tool_choice).toEqual({
      type: 'tool',
      name: 'lookup',
    })
  })
})

describe('toolChoice through the AI SDK adapter (gateway wire)', () => {
  const wire = { auto: { type: 'auto' }, none: { type: 'none' }, required: { type: 'required' }, lookup: { type: 'tool', toolName: 'lookup' } }
  for (const choice of CHOICES) {
    const key = typeof choice === 'string' ? choice : 'lookup'
    it(`sends ${JSON.stringify(choice)} as toolChoice ${JSON.stringify(wire[key])}`, async () => {
      const body = await bodyOf(gatewayText('ok'), () => gatewayProvider().complete(request(choice)))
      expect(body.toolChoice).toEqual(wire[key])
    })
  }

  it('sends no toolChoice when the request has none', async () => {
    expect(await bodyOf(gatewayText('ok'), () => gatewayProvider().complete(request(undefined)))).not.toHaveProperty('toolChoice')
  })
})

describe('toolChoice through the AI SDK middleware', () => {
  const lookup = tool({
    description: 'find an order',
    inputSchema: jsonSchema<{ orderId: string }>({ type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] }),
    execute: async () => 'delivered',
  })

  it("passes the caller's named tool choice to the model unchanged", async () => {
    const model = wrapLanguageModel({ model: gatewayModel(), middleware: reliabilityMiddleware({}) })
    const reply = gatewayToolCall('c1', 'lookup', '{"orderId":"42"}')
    const body = await bodyOf(reply, () =>
      generateText({ model, prompt: 'where is order 42?', tools: { lookup }, toolChoice: { type: 'tool', toolName: 'lookup' } }),
    )
    expect(body.toolChoice).toEqual({ type: 'tool', toolName: 'lookup' })
  })

  it("passes the caller's 'required' and 'none' through", async () => {
    for (const toolChoice of ['required', 'none'] as const) {
      const model = wrapLanguageModel({ model: gatewayModel(), middleware: reliabilityMiddleware({}) })
      const reply = toolChoice === 'none' ? gatewayText('ok') : gatewayToolCall('c1', 'lookup', '{"orderId":"42"}')
      const body = await bodyOf(reply, () => generateText({ model, prompt: 'where is order 42?', tools: { lookup }, toolChoice }))
      expect(body.toolChoice).toEqual({ type: toolChoice })
    }
  })
})

describe('the forced re-ask of an agent on the wire (forcedToolReask)', () => {
  const lookup = agentTool({ name: 'lookup', description: 'find an order', input: Type.Object({ orderId: Type.String() }), execute: () => 'delivered' })
  const runAgent = async (provider: Provider, replies: readonly Reply[]) => {
    server.script(replies)
    server.requests.length = 0
    const text = await Agent.create({ provider, forcedToolReask: true }).tool(lookup).build().run('where is order 42?')
    return { text, bodies: server.requests.map((r) => r.body as Record<string, unknown>) }
  }

  it('pins tool_choice to the function on OpenAI only for the re-ask after a prose answer', async () => {
    const call = (id: string, args: string) => openaiToolCalls([{ id, name: 'lookup', arguments: args }])
    const { text, bodies } = await runAgent(openaiProvider(), [
      call('c1', '{"orderId": 42}'),
      openaiText('I cannot.'),
      call('c2', '{"orderId": "42"}'),
      openaiText('done'),
    ])
    expect(text).toBe('done')
    expect(bodies.map((b) => b.tool_choice)).toEqual([undefined, undefined, { type: 'function', function: { name: 'lookup' } }, undefined])
  })

  it('pins tool_choice to the tool on Anthropic only for the re-ask after a prose answer', async () => {
    const call = (id: string, input: unknown) => anthropicMessage([{ type: 'tool_use', id, name: 'lookup', input }], 'tool_use')
    const { text, bodies } = await runAgent(anthropicProvider(), [
      call('toolu_1', { orderId: 42 }),
      anthropicText('I cannot.'),
      call('toolu_2', { orderId: '42' }),
      anthropicText('done'),
    ])
    expect(text).toBe('done')
    expect(bodies.map((b) => b.tool_choice)).toEqual([undefined, undefined, { type: 'tool', name: 'lookup' }, undefined])
  })
})
