import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createAgent, tool } from 'langchain'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/langchain.ts'
import { instrument } from '../../src/otel/index.ts'
import { otelHarness } from '../observability/otel-support.ts'
import { SCHEMA_INSTRUCTION_HEAD } from '../../src/model/schema-instruction.ts'

const Answer = Type.Object({ city: Type.String(), celsius: Type.Number() }, { additionalProperties: false })

function weatherTool(ran: unknown[]) {
  return tool(
    async (args: { city: string; days: number }) => {
      ran.push(args)
      return `${args.city}: 21°C`
    },
    { name: 'get_weather', description: 'Weather for a city', schema: z.object({ city: z.string(), days: z.number().int().min(1).max(7) }) },
  )
}

const texts = (messages: readonly BaseMessage[]) => messages.map((m) => `${m.type}:${m.text}`)

describe('reliabilityMiddleware for LangChain createAgent', () => {
  it('re-asks a final answer that fails the schema with the ephemeral tail, and keeps only the accepted message', async () => {
    const model = fakeModel().respond(new AIMessage('It is warm in Oslo.')).respond(new AIMessage('{"city":"Oslo","celsius":21}'))
    const middleware = reliabilityMiddleware({ outputSchema: Answer, postDecide: strictOutputRules(3) })
    const failures: unknown[] = []
    middleware.on('validation_failed', (e) => failures.push(e))
    const agent = createAgent({ model, tools: [], middleware: [middleware] })
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Weather in Oslo as JSON' }] })
    expect(texts(result.messages)).toEqual(['human:Weather in Oslo as JSON', 'ai:{"city":"Oslo","celsius":21}'])
    // The retry saw the rejected answer and the feedback after the request's messages; the state never did.
    const retry = model.calls[1]?.messages ?? []
    expect(retry.map((m) => m.type)).toEqual(['human', 'ai', 'human'])
    expect(retry[1]?.text).toBe('It is warm in Oslo.')
    expect(retry[2]?.text).toContain('JSON')
    expect(failures).toHaveLength(1)
    expect(failures[0]).toMatchObject({ stage: 'json-parse', attempt: 1 })
    expect(typeof (failures[0] as { runId: unknown }).runId).toBe('string')
  })

  it('fails the run with the typed error of the gate when no rule retries an invalid answer', async () => {
    const model = fakeModel().respond(new AIMessage('no')).respond(new AIMessage('still no')).respond(new AIMessage('never'))
    const agent = createAgent({ model, tools: [], middleware: [reliabilityMiddleware({ outputSchema: Answer, postDecide: [] })] })
    const error = await agent.invoke({ messages: [{ role: 'user', content: 'JSON please' }] }).catch((e: unknown) => e)
    // LangChain wraps what a middleware throws in its MiddlewareError; the gate's error is the cause.
    const cause = (error as { cause?: unknown }).cause
    expect(isReliabilityFailFastError(cause) && cause.kind).toBe('schema-fail')
  })

  it('retries a tool call with invalid arguments before it enters the state: the state holds only the accepted call, and the tool runs once', async () => {
    const ran: unknown[] = []
    const model = fakeModel()
      .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo', days: 'two' }, id: 'c1' }])
      .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo', days: 2 }, id: 'c2' }])
      .respond(new AIMessage('{"city":"Oslo","celsius":21}'))
    const middleware = reliabilityMiddleware({ outputSchema: Answer })
    const failures: { stage: string }[] = []
    middleware.on('validation_failed', (e) => failures.push(e))
    const agent = createAgent({ model, tools: [weatherTool(ran)], middleware: [middleware] })
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Weather in Oslo' }] })
    expect(ran).toEqual([{ city: 'Oslo', days: 2 }])
    // As on the Agent and MCP paths: the original call id with the accepted arguments, no rejected call, no feedback.
    expect(result.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai'])
    expect((result.messages[1] as AIMessage).tool_calls?.map((c) => [c.id, c.args])).toEqual([['c1', { city: 'Oslo', days: 2 }]])
    expect(result.messages[2]).toMatchObject({ tool_call_id: 'c1' })
    expect(result.messages[2]?.text).toBe('Oslo: 21°C')
    expect(result.messages.at(-1)?.text).toBe('{"city":"Oslo","celsius":21}')
    expect(JSON.stringify(result.messages)).not.toContain('two')
    // The retry saw the rejected call and its feedback after the request's messages.
    const retry = model.calls[1]?.messages ?? []
    expect(retry.map((m) => m.type)).toEqual(['human', 'ai', 'tool'])
    expect(retry[2]?.text).toContain("'days'")
    expect(failures.map((f) => f.stage)).toEqual(['tool-args'])
  })

  it('answers arguments still invalid after maxToolRetries with feedback (exhausted), never running the tool, and the run goes on', async () => {
    const ran: unknown[] = []
    const bad = { name: 'get_weather', args: { city: 7, days: 1 } }
    const model = fakeModel()
      .respondWithTools([{ ...bad, id: 'c1' }])
      .respondWithTools([{ ...bad, id: 'c2' }])
      .respond(new AIMessage('I could not get the weather.'))
    const middleware = reliabilityMiddleware({ maxToolRetries: 1 })
    const outcomes: string[] = []
    middleware.on('tool_retry_outcome', (e) => outcomes.push(`${e.outcome}:${e.retryCount}`))
    const agent = createAgent({ model, tools: [weatherTool(ran)], middleware: [middleware] })
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Weather' }] })
    expect(ran).toEqual([])
    expect(outcomes).toEqual(['redundant:1', 'exhausted:1'])
    expect(result.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai'])
    expect(result.messages[2]).toMatchObject({ status: 'error', tool_call_id: 'c1' })
    expect(result.messages.at(-1)?.text).toBe('I could not get the weather.')
  })

  it('with toolGiveUpStops, stops a retry that repeats the rejected arguments as schema-stuck-loop', async () => {
    const ran: unknown[] = []
    const bad = { name: 'get_weather', args: { city: 7, days: 1 } }
    const model = fakeModel()
      .respondWithTools([{ ...bad, id: 'c1' }])
      .respondWithTools([{ ...bad, id: 'c2' }])
      .respond(new AIMessage('unreachable'))
    const agent = createAgent({ model, tools: [weatherTool(ran)], middleware: [reliabilityMiddleware({ maxToolRetries: 3, toolGiveUpStops: true })] })
    const error = await agent.invoke({ messages: [{ role: 'user', content: 'Weather' }] }).catch((e: unknown) => e)
    const cause = (error as { cause?: unknown }).cause
    expect(isReliabilityFailFastError(cause) && cause.kind).toBe('schema-stuck-loop')
    expect(ran).toEqual([])
  })

  it('writes the accepted arguments into tool_use content blocks too, so no rejected arguments go back to the model', async () => {
    const ran: unknown[] = []
    const bad = { city: 'Oslo', days: 'two' }
    const first = new AIMessage({
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'c1', name: 'get_weather', input: bad },
      ],
      tool_calls: [{ name: 'get_weather', args: bad, id: 'c1', type: 'tool_call' }],
    })
    const model = fakeModel()
      .respond(first)
      .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo', days: 2 }, id: 'c2' }])
      .respond(new AIMessage('{"city":"Oslo","celsius":21}'))
    const agent = createAgent({ model, tools: [weatherTool(ran)], middleware: [reliabilityMiddleware({})] })
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Weather in Oslo' }] })
    const accepted = result.messages[1] as AIMessage
    expect(accepted.tool_calls?.map((c) => c.args)).toEqual([{ city: 'Oslo', days: 2 }])
    expect((accepted.content as { type: string; input?: unknown }[]).find((b) => b.type === 'tool_use')?.input).toEqual({ city: 'Oslo', days: 2 })
    expect(ran).toEqual([{ city: 'Oslo', days: 2 }])
  })

  it('lets a prose reply to a retry stand as the answer (llm_gave_up), with nothing of the rejected call in the state', async () => {
    const ran: unknown[] = []
    const model = fakeModel()
      .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo', days: 'two' }, id: 'c1' }])
      .respond(new AIMessage('I cannot tell the weather.'))
      .respond(new AIMessage('never read'))
    const middleware = reliabilityMiddleware({})
    const outcomes: string[] = []
    middleware.on('tool_retry_outcome', (e) => outcomes.push(e.outcome))
    const agent = createAgent({ model, tools: [weatherTool(ran)], middleware: [middleware] })
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Weather in Oslo' }] })
    expect(texts(result.messages)).toEqual(['human:Weather in Oslo', 'ai:I cannot tell the weather.'])
    expect(outcomes).toEqual(['llm_gave_up'])
    expect(ran).toEqual([])
  })

  it('with forcedToolReask, re-asks a prose reply once with toolChoice pinned to the tool', async () => {
    const ran: unknown[] = []
    const model = fakeModel()
      .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo', days: 'two' }, id: 'c1' }])
      .respond(new AIMessage('I cannot.'))
      .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo', days: 2 }, id: 'c3' }])
      .respond(new AIMessage('{"city":"Oslo","celsius":21}'))
    const agent = createAgent({ model, tools: [weatherTool(ran)], middleware: [reliabilityMiddleware({ forcedToolReask: true })] })
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Weather in Oslo' }] })
    expect(ran).toEqual([{ city: 'Oslo', days: 2 }])
    expect((result.messages[1] as AIMessage).tool_calls?.map((c) => c.id)).toEqual(['c1'])
    expect(model.calls).toHaveLength(4)
  })

  it("gives the model the schema instruction of outputMode 'prompt' after the agent's own system prompt, and nothing without a mode", async () => {
    const systemOf = async (options: Parameters<typeof reliabilityMiddleware>[0]) => {
      const model = fakeModel().respond(new AIMessage('{"city":"Oslo","celsius":21}'))
      const agent = createAgent({ model, tools: [], systemPrompt: 'Be brief.', middleware: [reliabilityMiddleware(options)] })
      await agent.invoke({ messages: [{ role: 'user', content: 'Weather in Oslo as JSON' }] })
      const first = model.calls[0]?.messages ?? []
      return first.filter((m) => m.type === 'system').map((m) => m.text)
    }
    const [prompted] = await systemOf({ outputSchema: Answer, outputMode: 'prompt' })
    expect(prompted?.startsWith('Be brief.\n\n')).toBe(true)
    expect(prompted).toContain(SCHEMA_INSTRUCTION_HEAD)
    expect(prompted).toContain('"celsius"')
    expect(await systemOf({ outputSchema: Answer })).toEqual(['Be brief.'])
  })

  it("names its own options, not only the gate's, in its unknown-option errors", () => {
    expect(() => reliabilityMiddleware({ maxToolretries: 2 } as never)).toThrow(
      /reliabilityMiddleware: unknown option "maxToolretries" \(did you mean "maxToolRetries"\?\)/,
    )
    expect(() => reliabilityMiddleware({ nope: 1 } as never)).toThrow(/the options are .*maxToolRetries.*forcedToolReask.*toolGiveUpStops/)
    expect(() => reliabilityMiddleware({ toolGiveUpStops: 'yes' } as never)).toThrow(TypeError)
  })

  it('is an event source for instrument(): one chat span per attempt, under the run of the model call', async () => {
    const h = otelHarness()
    const model = fakeModel().respond(new AIMessage('warm')).respond(new AIMessage('{"city":"Oslo","celsius":21}'))
    const middleware = reliabilityMiddleware({ outputSchema: Answer, postDecide: strictOutputRules(3) })
    const stop = instrument(middleware, h.providers)
    const runIds: string[] = []
    middleware.on('run_end', (e) => runIds.push(e.runId))
    await createAgent({ model, tools: [], middleware: [middleware] }).invoke({ messages: [{ role: 'user', content: 'JSON' }] })
    stop()
    const chats = h.spans().filter((s) => s.name.startsWith('chat'))
    expect(chats).toHaveLength(2)
    expect(runIds).toHaveLength(1)
    expect(h.spans().some((s) => s.attributes['reliability_gate.run_id'] === runIds[0])).toBe(true)
    await h.shutdown()
  })

  it('refuses bad options with a typed error naming them', () => {
    expect(() => reliabilityMiddleware({ maxToolRetries: -1 })).toThrow(
      new RangeError('reliabilityMiddleware: maxToolRetries must be a non-negative integer, got -1'),
    )
  })
})
