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

  it('answers a tool call with invalid arguments with an error tool message the model corrects; the tool runs once', async () => {
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
    const toolResults = result.messages.filter((m) => m.type === 'tool')
    expect(toolResults[0]).toMatchObject({ status: 'error', name: 'get_weather', tool_call_id: 'c1' })
    expect(toolResults[0]?.text).toContain("'days'")
    expect(toolResults[1]?.text).toBe('Oslo: 21°C')
    expect(result.messages.at(-1)?.text).toBe('{"city":"Oslo","celsius":21}')
    expect(failures.map((f) => f.stage)).toEqual(['tool-args'])
  })

  it('stops a run whose tool arguments stay invalid past maxToolRetries with kind tool-args-invalid', async () => {
    const ran: unknown[] = []
    const bad = { name: 'get_weather', args: { city: 7, days: 1 } }
    const model = fakeModel()
      .respondWithTools([{ ...bad, id: 'c1' }])
      .respondWithTools([{ ...bad, id: 'c2' }])
      .respond(new AIMessage('unreachable'))
    const agent = createAgent({ model, tools: [weatherTool(ran)], middleware: [reliabilityMiddleware({ maxToolRetries: 1 })] })
    const error = await agent.invoke({ messages: [{ role: 'user', content: 'Weather' }] }).catch((e: unknown) => e)
    const cause = (error as { cause?: unknown }).cause
    expect(isReliabilityFailFastError(cause) && cause.kind).toBe('tool-args-invalid')
    expect(ran).toEqual([])
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
