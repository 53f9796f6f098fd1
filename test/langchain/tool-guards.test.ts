import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createAgent, createMiddleware, tool } from 'langchain'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { guard } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/langchain.ts'

/** A tool reading a message by id; `ran` lists the arguments it ran on. */
function readMessage(ran: unknown[]) {
  return tool(
    async (args: { message_id: string }) => {
      ran.push(args)
      return `message ${args.message_id}`
    },
    { name: 'read_message', description: 'Reads a message', schema: z.object({ message_id: z.string() }) },
  )
}

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] })
const noOslo = guard('no-oslo', (args) => ((args as { city?: unknown }).city === 'Oslo' ? { ok: false, reason: 'Oslo is closed' } : { ok: true }))

describe('reliabilityMiddleware for LangChain: tool guards', () => {
  it('blocks a slug-shaped fabricated id with the default ID-shape guard: never retried, never run, answered BLOCKED', async () => {
    const ran: unknown[] = []
    const model = fakeModel()
      .respondWithTools([{ name: 'read_message', args: { message_id: 'order-refund-42' }, id: 'c1' }])
      .respond(new AIMessage('I could not read it.'))
    const middleware = reliabilityMiddleware({})
    const outcomes: string[] = []
    middleware.on('tool_retry_outcome', (e) => outcomes.push(`${e.outcome}:${e.retryCount}`))
    const result = await createAgent({ model, tools: [readMessage(ran)], middleware: [middleware] }).invoke(ask('read it'))
    expect(ran).toEqual([])
    expect(outcomes).toEqual([])
    // No re-ask: one call for the blocked turn, one for the answer.
    expect(model.calls).toHaveLength(2)
    const blocked = result.messages[2] as BaseMessage & { status?: string }
    expect(blocked.type).toBe('tool')
    expect(blocked.status).toBe('error')
    expect(blocked.text).toMatch(/^BLOCKED: the call to tool 'read_message' was not executed: guard idShapeGuard rejected its arguments: 'message_id'/)
    expect(result.messages.at(-1)?.text).toBe('I could not read it.')
  })

  it("runs the user's toolGuards on the model turn and where the tool runs", async () => {
    const ran: unknown[] = []
    const weather = tool(
      async (args: { city: string }) => {
        ran.push(args)
        return `${args.city}: 21°C`
      },
      { name: 'get_weather', description: 'Weather for a city', schema: z.object({ city: z.string() }) },
    )
    const model = fakeModel()
      .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo' }, id: 'c1' }])
      .respondWithTools([{ name: 'get_weather', args: { city: 'Bergen' }, id: 'c2' }])
      .respond(new AIMessage('Bergen is warm.'))
    const middleware = reliabilityMiddleware({ toolGuards: [noOslo] })
    const failures: string[] = []
    middleware.on('validation_failed', (e) => failures.push(e.message))
    const result = await createAgent({ model, tools: [weather], middleware: [middleware] }).invoke(ask('weather'))
    expect(ran).toEqual([{ city: 'Bergen' }])
    expect(failures).toEqual([expect.stringContaining('Oslo is closed')])
    expect(result.messages.filter((m: BaseMessage) => m.type === 'tool').map((m: BaseMessage) => m.text)).toEqual([
      expect.stringMatching(/^BLOCKED: .*guard no-oslo rejected its arguments: Oslo is closed/),
      'Bergen: 21°C',
    ])
  })

  it('never runs a tool on arguments a guard rejects, even when they enter the state another way', async () => {
    const ran: unknown[] = []
    const weather = tool(
      async (args: { city: string }) => {
        ran.push(args)
        return `${args.city}: 21°C`
      },
      { name: 'get_weather', description: 'Weather for a city', schema: z.object({ city: z.string() }) },
    )
    // Another middleware, after ours, rewrites the settled call to a city the guard refuses.
    const rewrite = createMiddleware({
      name: 'Rewrite',
      wrapModelCall: async (request, handler) => {
        const answer = (await handler(request)) as AIMessage
        const calls = answer.tool_calls ?? []
        return calls.length === 0 ? answer : new AIMessage({ content: '', tool_calls: calls.map((c) => ({ ...c, args: { city: 'Oslo' } })) })
      },
    })
    const model = fakeModel()
      .respondWithTools([{ name: 'get_weather', args: { city: 'Bergen' }, id: 'c1' }])
      .respond(new AIMessage('done'))
    const middleware = reliabilityMiddleware({ toolGuards: [noOslo] })
    const result = await createAgent({ model, tools: [weather], middleware: [rewrite, middleware] }).invoke(ask('weather'))
    expect(ran).toEqual([])
    expect(result.messages[2]?.text).toMatch(/^BLOCKED: /)
  })

  it('refuses toolGuards that are not guards with a TypeError when the middleware is made', () => {
    expect(() => reliabilityMiddleware({ toolGuards: [() => ({ ok: true })] as never })).toThrow(TypeError)
    expect(() => reliabilityMiddleware({ toolGuards: 'id-shape' as never })).toThrow(/toolGuards/)
  })
})
