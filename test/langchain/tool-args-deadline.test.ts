import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createAgent, tool } from 'langchain'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { guard, isReliabilityFailFastError, type ReliabilityFailFastError } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/langchain.ts'

function weatherTool(ran: unknown[]) {
  return tool(
    async (args: { city: string }) => {
      ran.push(args)
      return `${args.city}: 21°C`
    },
    { name: 'get_weather', description: 'Weather for a city', schema: z.object({ city: z.string() }) },
  )
}

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] })
/** The gate's error behind LangChain's `MiddlewareError`. */
const causeOf = (error: unknown): ReliabilityFailFastError | undefined => {
  const cause = (error as { cause?: unknown } | undefined)?.cause
  return isReliabilityFailFastError(error) ? error : isReliabilityFailFastError(cause) ? cause : undefined
}
/** A guard that never answers for the city it is told to hold (a classifier that hangs). */
const hangsOn = (city: unknown) =>
  guard('slowClassifier', (args: unknown) => ((args as { city?: unknown }).city === city ? new Promise<never>(() => undefined) : { ok: true }), {
    checksRawInput: true,
  })

describe('reliabilityMiddleware for LangChain: the tool-argument loop of a model turn', () => {
  it('ends a guard that never answers at runTimeoutMs as run-timeout, carrying the attempt spent', async () => {
    const ran: unknown[] = []
    const model = fakeModel()
      .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo' }, id: 'c1' }])
      .respond(new AIMessage('never read'))
    const middleware = reliabilityMiddleware({ runTimeoutMs: 20, toolGuards: [hangsOn('Oslo')] })
    const kinds: string[] = []
    middleware.on('fail_fast', (e) => kinds.push(e.kind))
    const error = await createAgent({ model, tools: [weatherTool(ran)], middleware: [middleware] })
      .invoke(ask('weather'))
      .catch((e: unknown) => e)
    expect(causeOf(error)?.kind).toBe('run-timeout')
    expect(causeOf(error)?.attempts).toHaveLength(1)
    expect(kinds).toEqual(['run-timeout'])
    expect(ran).toEqual([])
  })

  it('stops with toolGiveUpStops carrying every attempt of the turn: the first answer and its re-ask', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: 'get_weather', args: { city: 7 }, id: 'c1' }])
      .respond(new AIMessage('I cannot tell.'))
      .respond(new AIMessage('never read'))
    const error = await createAgent({ model, tools: [weatherTool([])], middleware: [reliabilityMiddleware({ toolGiveUpStops: true })] })
      .invoke(ask('weather'))
      .catch((e: unknown) => e)
    const failure = causeOf(error)
    expect(failure?.kind).toBe('tool-call-abandoned')
    expect(failure?.attempts).toHaveLength(2)
    expect(model.calls).toHaveLength(2)
  })
})
