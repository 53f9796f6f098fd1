import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import Anthropic from '@anthropic-ai/sdk'
import { generateText, jsonSchema, Output, streamText, wrapLanguageModel } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, createGate, failoverRule, retryTransient, strictOutputRules, type GateEventMap } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk-middleware/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { anthropicError, anthropicText } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'
import { openaiSse, openaiText } from './support/openai-wire.ts'
import { ANTHROPIC_SCHEMA_REJECTED, OPENAI_SCHEMA_REJECTED, rejection } from './support/rejection-bodies.ts'

/** A title and an optional note: OpenAI strict sends the note as nullable and required. */
const Answer = {
  type: 'object',
  properties: { title: { type: 'string' }, note: { type: 'string', minLength: 3 } },
  required: ['title'],
} as const
/** A map (object-valued additionalProperties): no provider's native mode can carry it without closing it. */
const Scores = { type: 'object', additionalProperties: { type: 'number' } } as const

let server: LoopbackServer
const gpt = () => openai({ client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0, timeout: 5_000 }), model: 'gpt-4o' })
const claude = () => anthropic({ client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0, timeout: 5_000 }), model: 'claude-sonnet-4-5' })
const ask = { messages: [{ role: 'user' as const, content: 'title this' }] }
const rules = () => [retryTransient({ maxRetries: 3 }), ...strictOutputRules(5)]

beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

function script(replies: readonly Reply[]): void {
  server.script(replies)
  server.requests.length = 0
}
const bodies = () => server.requests.map((r) => r.body as Record<string, any>)
const systemOf = (body: Record<string, any>): string =>
  typeof body.system === 'string' ? body.system : ((body.messages as { role: string; content: string }[]).find((m) => m.role === 'system')?.content ?? '')

function demotions(gate: { on: (name: 'output_mode_demoted', l: (e: GateEventMap['output_mode_demoted']) => void) => unknown }) {
  const seen: GateEventMap['output_mode_demoted'][] = []
  gate.on('output_mode_demoted', (e) => seen.push(e))
  return seen
}

describe('outputMode on the OpenAI wire', () => {
  it('auto sends the schema compiled for strict mode and validates the answer mapped back (an absent note, not null)', async () => {
    script([openaiText('{"title":"Q3","note":null}')])
    const gate = createGate({ providers: gpt(), outputSchema: Answer, outputMode: 'auto', postDecide: rules() })
    const result = await gate.run(ask)
    expect(result.value).toEqual({ title: 'Q3' })
    expect(Object.hasOwn(result.value as object, 'note')).toBe(false)
    const format = bodies()[0]?.response_format
    expect(format.type).toBe('json_schema')
    expect(format.json_schema.strict).toBe(true)
    expect(format.json_schema.schema.required).toEqual(['title', 'note'])
    expect(format.json_schema.schema.additionalProperties).toBe(false)
    expect(format.json_schema.schema.properties.note.type).toEqual(['string', 'null'])
    expect(systemOf(bodies()[0] as Record<string, any>)).not.toContain('JSON Schema')
  })

  it('a constraint strict mode does not carry is still enforced by the gate on the mapped-back value', async () => {
    script([openaiText('{"title":"Q3","note":"ab"}'), openaiText('{"title":"Q3","note":"about Q3"}')])
    const gate = createGate({ providers: gpt(), outputSchema: Answer, outputMode: 'auto', postDecide: rules() })
    const result = await gate.run(ask)
    expect(result.value).toEqual({ title: 'Q3', note: 'about Q3' })
    expect(server.requests).toHaveLength(2)
    expect(JSON.stringify(bodies()[1]?.messages)).toContain("'note'")
  })

  it('auto sends a map in JSON mode, the schema in the system prompt', async () => {
    script([openaiText('{"a":1,"b":2}')])
    const gate = createGate({ providers: gpt(), outputSchema: Scores, outputMode: 'auto' })
    await expect(gate.run({ ...ask, system: 'be brief' })).resolves.toMatchObject({ value: { a: 1, b: 2 } })
    const body = bodies()[0] as Record<string, any>
    expect(body.response_format).toEqual({ type: 'json_object' })
    expect(systemOf(body)).toMatch(/^be brief\n\n/)
    expect(systemOf(body)).toContain(JSON.stringify(Scores))
  })

  it('native reports a schema it cannot compile and sends it in JSON mode', async () => {
    script([openaiText('{"a":1}'), openaiText('{"a":2}')])
    const gate = createGate({ providers: gpt(), outputSchema: Scores, outputMode: 'native' })
    const seen = demotions(gate)
    await gate.run(ask)
    await gate.run(ask)
    expect(bodies().map((b) => b.response_format)).toEqual([{ type: 'json_object' }, { type: 'json_object' }])
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ provider: 'openai', from: 'native', to: 'json', cause: 'uncompilable' })
    expect(seen[0]?.reason).toContain('#')
  })

  it('json and prompt: json_object with the schema in the instructions, or the instructions only', async () => {
    script([openaiText('{"title":"a"}'), openaiText('{"title":"b"}')])
    const gate = createGate({ providers: gpt(), outputSchema: Answer, outputMode: 'json' })
    await gate.run(ask)
    await gate.run({ ...ask, outputMode: 'prompt' })
    const [json, prompt] = bodies() as Record<string, any>[]
    expect(json?.response_format).toEqual({ type: 'json_object' })
    expect(prompt?.response_format).toBeUndefined()
    for (const body of [json, prompt]) expect(systemOf(body as Record<string, any>)).toContain(JSON.stringify(Answer))
  })

  it('a 400 refusing the schema is one call: demoted to JSON mode at once, and remembered by the gate', async () => {
    script([rejection(400, OPENAI_SCHEMA_REJECTED), openaiText('{"title":"a"}'), openaiText('{"title":"b"}')])
    const gate = createGate({ providers: gpt(), outputSchema: Answer, outputMode: 'auto', postDecide: rules(), maxAttempts: 10 })
    const seen = demotions(gate)
    const first = await gate.run(ask)
    expect(first.value).toEqual({ title: 'a' })
    expect(first.attempts.map((a) => a.status)).toEqual(['http_error', 'success'])
    expect(bodies().map((b) => b.response_format.type)).toEqual(['json_schema', 'json_object'])
    expect(seen).toEqual([expect.objectContaining({ from: 'native', to: 'json', cause: 'schema-rejected' })])
    expect(seen[0]?.reason).toContain('Invalid schema for response_format')
    // The next run starts in JSON mode: the refused schema is never sent again.
    await gate.run(ask)
    expect(bodies().map((b) => b.response_format.type)).toEqual(['json_schema', 'json_object', 'json_object'])
    expect(seen).toHaveLength(1)
  })

  it('each mode is refused at most once: native, then json, then the prompt', async () => {
    script([rejection(400, OPENAI_SCHEMA_REJECTED), rejection(400, OPENAI_SCHEMA_REJECTED), openaiText('{"title":"a"}')])
    const gate = createGate({ providers: gpt(), outputSchema: Answer, outputMode: 'native', postDecide: rules() })
    const seen = demotions(gate)
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'a' } })
    expect(bodies().map((b) => b.response_format?.type ?? 'none')).toEqual(['json_schema', 'json_object', 'none'])
    expect(seen.map((e) => `${e.from}->${e.to}`)).toEqual(['native->json', 'json->prompt'])
  })

  it('a refusal in prompt mode has nothing to demote: it fails fast with schema-rejected after one call', async () => {
    script([rejection(400, OPENAI_SCHEMA_REJECTED), openaiText('never asked')])
    const gate = createGate({ providers: gpt(), outputSchema: Answer, outputMode: 'prompt', postDecide: rules() })
    await expect(gate.run(ask)).rejects.toMatchObject({ kind: 'schema-rejected' })
    expect(server.requests).toHaveLength(1)
  })

  it('a streamed run is demoted the same way', async () => {
    script([rejection(400, OPENAI_SCHEMA_REJECTED), openaiSse('{"title":"a"}')])
    const gate = createGate({ providers: gpt(), outputSchema: Answer, outputMode: 'auto', postDecide: rules() })
    const result = await gate.stream(ask, { mode: 'buffer' }).result
    expect(result.value).toEqual({ title: 'a' })
    expect(bodies().map((b) => b.response_format.type)).toEqual(['json_schema', 'json_object'])
  })
})

describe('outputMode on the Anthropic wire', () => {
  it('auto sends output_config.format with the compiled schema (closed, unsupported keywords in the description)', async () => {
    script([anthropicText('{"title":"Q3"}')])
    const gate = createGate({ providers: claude(), outputSchema: Answer, outputMode: 'auto' })
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'Q3' } })
    const format = bodies()[0]?.output_config.format
    expect(format.type).toBe('json_schema')
    expect(format.schema.additionalProperties).toBe(false)
    expect(format.schema.required).toEqual(['title'])
    expect(format.schema.properties.note.minLength).toBeUndefined()
    expect(format.schema.properties.note.description).toContain('minLength: 3')
  })

  it('the format joins an output_config of the extra body (effort) instead of replacing it', async () => {
    script([anthropicText('{"title":"Q3"}')])
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 })
    const gate = createGate({
      providers: anthropic({ client, model: 'claude-x', extraBody: { output_config: { effort: 'low' } } }),
      outputSchema: Answer,
      outputMode: 'auto',
    })
    await gate.run(ask)
    expect(bodies()[0]?.output_config.effort).toBe('low')
    expect(bodies()[0]?.output_config.format.type).toBe('json_schema')
  })

  it('json has no Anthropic mode: the schema goes in the system prompt, no output_config', async () => {
    script([anthropicText('{"title":"Q3"}')])
    const gate = createGate({ providers: claude(), outputSchema: Answer, outputMode: 'json' })
    await gate.run({ ...ask, system: 'be brief' })
    const body = bodies()[0] as Record<string, any>
    expect(body.output_config).toBeUndefined()
    expect(body.system).toContain('be brief')
    expect(body.system).toContain(JSON.stringify(Answer))
  })

  it("Anthropic's 400 refusing the schema demotes it to the prompt (no JSON mode) after one call, for later runs too", async () => {
    script([rejection(400, ANTHROPIC_SCHEMA_REJECTED), anthropicText('{"title":"a"}'), anthropicText('{"title":"b"}')])
    const gate = createGate({ providers: claude(), outputSchema: Answer, outputMode: 'auto', postDecide: rules() })
    const seen = demotions(gate)
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'a' } })
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'b' } })
    expect(bodies().map((b) => (b.output_config === undefined ? 'prompt' : 'native'))).toEqual(['native', 'prompt', 'prompt'])
    expect(bodies()[1]?.system).toContain(JSON.stringify(Answer))
    expect(seen).toEqual([expect.objectContaining({ provider: 'anthropic', from: 'native', to: 'prompt', cause: 'schema-rejected' })])
  })

  it('the demotion is per provider: the failover provider still gets its native mode', async () => {
    script([rejection(400, ANTHROPIC_SCHEMA_REJECTED), anthropicText('{"title":"a"}'), anthropicError(529, 'overloaded_error'), openaiText('{"title":"b"}')])
    const gate = createGate({ providers: [claude(), gpt()], outputSchema: Answer, outputMode: 'auto', postDecide: [failoverRule(), ...rules()] })
    await gate.run(ask)
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'b' } })
    const sent = bodies()
    expect(sent[2]?.output_config).toBeUndefined()
    expect(sent[3]?.response_format.type).toBe('json_schema')
  })
})

describe('outputMode through the AI SDK', () => {
  const aiOpenAI = () => aiSdk(createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k' }).chat('gpt-4o'))

  it('aiSdk over @ai-sdk/openai sends the strict compiled schema and maps the answer back', async () => {
    script([openaiText('{"title":"Q3","note":null}')])
    const gate = createGate({ providers: aiOpenAI(), outputSchema: Answer, outputMode: 'auto' })
    const result = await gate.run(ask)
    expect(result.value).toEqual({ title: 'Q3' })
    const format = bodies()[0]?.response_format
    expect(format.json_schema.strict).toBe(true)
    expect(format.json_schema.schema.required).toEqual(['title', 'note'])
  })

  it('aiSdk: a 400 refusing the schema demotes it to JSON mode (json_object) after one call', async () => {
    script([rejection(400, OPENAI_SCHEMA_REJECTED), openaiText('{"title":"a"}')])
    const gate = createGate({ providers: aiOpenAI(), outputSchema: Answer, outputMode: 'auto', postDecide: rules() })
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'a' } })
    expect(bodies().map((b) => b.response_format.type)).toEqual(['json_schema', 'json_object'])
  })

  it('aiSdk over @ai-sdk/anthropic sends the compiled schema as output_config.format', async () => {
    script([anthropicText('{"title":"Q3"}')])
    const model = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'k' })('claude-sonnet-4-5')
    const gate = createGate({ providers: aiSdk(model), outputSchema: Answer, outputMode: 'native' })
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'Q3' } })
    const body = bodies()[0] as Record<string, any>
    expect(body.output_config.format.type).toBe('json_schema')
    const sent = JSON.stringify(body.output_config.format.schema)
    expect(sent).toContain('minLength: 3')
    expect(sent).not.toContain('"minLength"')
  })
})

describe('outputMode on the agent', () => {
  it('Agent reliability outputMode reaches the wire and the typed value is in the schema shape', async () => {
    script([openaiText('{"title":"Q3","note":null}')])
    const agent = Agent.create({ provider: gpt(), name: 'titler' }).outputSchema(Answer).reliability({ outputMode: 'auto' }).build()
    await expect(agent.runTyped('title this')).resolves.toEqual({ title: 'Q3' })
    expect(bodies()[0]?.response_format.json_schema.strict).toBe(true)
  })
})

describe('outputMode through the AI SDK middleware', () => {
  const wrapped = (outputMode: 'auto' | 'json' | 'prompt') =>
    wrapLanguageModel({
      model: createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k' }).chat('gpt-4o'),
      middleware: reliabilityMiddleware({ outputMode, postDecide: rules() }),
    })
  const output = Output.object({ schema: jsonSchema(Answer as never) })

  it('auto: the strict compiled schema on the wire, and generateText reads the answer in the schema shape', async () => {
    script([openaiText('{"title":"Q3","note":null}')])
    const result = await generateText({ model: wrapped('auto'), output, prompt: 'title this', maxRetries: 0 })
    expect(result.output).toEqual({ title: 'Q3' })
    const format = bodies()[0]?.response_format
    expect(format.json_schema.strict).toBe(true)
    expect(format.json_schema.schema.required).toEqual(['title', 'note'])
  })

  it('json: json_object, and the schema as a system message of the call', async () => {
    script([openaiText('{"title":"Q3"}')])
    const result = await generateText({ model: wrapped('json'), output, system: 'be brief', prompt: 'title this', maxRetries: 0 })
    expect(result.output).toEqual({ title: 'Q3' })
    const body = bodies()[0] as Record<string, any>
    expect(body.response_format).toEqual({ type: 'json_object' })
    const systems = (body.messages as { role: string; content: string }[]).filter((m) => m.role === 'system').map((m) => m.content)
    expect(systems[0]).toBe('be brief')
    expect(systems.join('\n')).toContain(JSON.stringify(Answer))
  })

  it('prompt: no response_format at all', async () => {
    script([openaiText('{"title":"Q3"}')])
    await generateText({ model: wrapped('prompt'), output, prompt: 'title this', maxRetries: 0 })
    expect(bodies()[0]?.response_format).toBeUndefined()
  })

  it('a 400 refusing the schema is demoted inside generateText: one refused call, then JSON mode', async () => {
    script([rejection(400, OPENAI_SCHEMA_REJECTED), openaiText('{"title":"a"}')])
    const result = await generateText({ model: wrapped('auto'), output, prompt: 'title this', maxRetries: 0 })
    expect(result.output).toEqual({ title: 'a' })
    expect(bodies().map((b) => b.response_format.type)).toEqual(['json_schema', 'json_object'])
  })

  it('streamText in auto mode asks OpenAI in JSON mode (a stream cannot be mapped back as it goes)', async () => {
    script([openaiSse('{"title":"Q3"}')])
    const result = streamText({ model: wrapped('auto'), output, prompt: 'title this', maxRetries: 0 })
    await expect(result.output).resolves.toEqual({ title: 'Q3' })
    expect(bodies()[0]?.response_format).toEqual({ type: 'json_object' })
  })
})
