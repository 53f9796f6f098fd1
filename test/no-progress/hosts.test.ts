import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { generateText, isStepCount, jsonSchema, tool as aiTool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent, createMiddleware, tool as lcTool } from 'langchain'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { type GateEventMap, isReliabilityFailFastError } from '../../src/index.ts'
import { noProgressSteps, reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { reliabilityMiddleware as langChainMiddleware } from '../../src/integrations/langchain.ts'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
/** A `doGenerate` answer calling `search` with the same arguments. */
const searchCall = (i: number) => ({
  content: [{ type: 'tool-call' as const, toolCallId: `c${i}`, toolName: 'search', input: '{"q":"refund policy"}' }],
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
})
const loopingModel = () => new MockLanguageModelV4({ doGenerate: Array.from({ length: 10 }, (_, i) => searchCall(i)) })
const Query = jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false })
const aiTools = (ran: string[]) => ({
  search: aiTool({ description: 'Search', inputSchema: Query, execute: async ({ q }) => (ran.push(q), 'no hits') }),
  lookup: aiTool({ description: 'Look up', inputSchema: Query, execute: async () => 'nothing' }),
})
const promptText = (prompt: readonly { role: string; content: unknown }[] | undefined): string[] =>
  (prompt ?? []).flatMap((m) =>
    Array.isArray(m.content) ? m.content.flatMap((p: { type: string; text?: string }) => (p.type === 'text' && p.text !== undefined ? [p.text] : [])) : [],
  )

describe('no-progress ladder in the AI SDK middleware', () => {
  it('nudges the fourth call, withholds the tool from the fifth, and throws no-progress before a sixth', async () => {
    const mock = loopingModel()
    const middleware = reliabilityMiddleware()
    const seen: GateEventMap['no_progress'][] = []
    middleware.on('no_progress', (e) => seen.push(e))
    const ran: string[] = []
    const error = await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools: aiTools(ran),
      stopWhen: isStepCount(20),
      prompt: 'refunds?',
    }).catch((e: unknown) => e)
    const failure = isReliabilityFailFastError(error) ? error : (error as { cause?: unknown }).cause
    expect(isReliabilityFailFastError(failure) && failure.kind).toBe('no-progress')
    expect(mock.doGenerateCalls).toHaveLength(5)
    expect(seen.map((e) => [e.host, e.step, e.pattern, e.count])).toEqual([
      ['ai-sdk', 'nudge', 'repeated-call', 3],
      ['ai-sdk', 'forced-change', 'repeated-call', 4],
      ['ai-sdk', 'stop', 'repeated-call', 5],
    ])
    expect(promptText(mock.doGenerateCalls[2]?.prompt as never).some((t) => t.startsWith('NO_PROGRESS'))).toBe(false)
    expect(promptText(mock.doGenerateCalls[3]?.prompt as never).at(-1)).toMatch(/^NO_PROGRESS: you have called 'search' with the same arguments 3 times/)
    expect(mock.doGenerateCalls[4]?.tools?.map((t) => t.name)).toEqual(['lookup'])
    // The nudge of the fourth call was the middleware's alone: the SDK's own prompt for the fifth does not carry it.
    expect(promptText(mock.doGenerateCalls[4]?.prompt as never).filter((t) => t.startsWith('NO_PROGRESS'))).toHaveLength(1)
  })

  it('withholds a tool the caller pinned with toolChoice, asking for another tool instead of naming one the call no longer offers', async () => {
    const mock = loopingModel()
    const middleware = reliabilityMiddleware()
    const seen: string[] = []
    middleware.on('no_progress', (e) => seen.push(e.step))
    const error = await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools: aiTools([]),
      toolChoice: { type: 'tool', toolName: 'search' },
      stopWhen: isStepCount(20),
      prompt: 'refunds?',
    }).catch((e: unknown) => e)
    const failure = isReliabilityFailFastError(error) ? error : (error as { cause?: unknown }).cause
    expect(isReliabilityFailFastError(failure) && failure.kind).toBe('no-progress')
    expect(seen).toEqual(['nudge', 'forced-change', 'stop'])
    expect(mock.doGenerateCalls[4]?.tools?.map((t) => t.name)).toEqual(['lookup'])
    expect(mock.doGenerateCalls[4]?.toolChoice).toEqual({ type: 'required' })
  })

  it('is off with noProgress: false', async () => {
    const mock = loopingModel()
    const ran: string[] = []
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware: reliabilityMiddleware({ noProgress: false }) }),
      tools: aiTools(ran),
      stopWhen: isStepCount(8),
      prompt: 'x',
    })
    expect(mock.doGenerateCalls).toHaveLength(8)
  })
})

describe('noProgressSteps (AI SDK stopWhen and prepareStep)', () => {
  it('stops the loop on the stop rung, after a nudge and a forced change, with the tokens spent since progress stopped', async () => {
    const mock = loopingModel()
    const loop = noProgressSteps({ tools: ['search', 'lookup'] as const })
    const seen: GateEventMap['no_progress'][] = []
    loop.on('no_progress', (e) => seen.push(e))
    const ran: string[] = []
    const result = await generateText({
      model: mock,
      tools: aiTools(ran),
      stopWhen: [isStepCount(20), loop.stopWhen],
      prepareStep: loop.prepareStep,
      prompt: 'refunds?',
    })
    expect(result.steps).toHaveLength(5)
    expect(seen.map((e) => e.step)).toEqual(['nudge', 'forced-change', 'stop'])
    expect(seen.at(-1)).toMatchObject({ turnsSinceProgress: 4, usage: { inputTokens: 40, outputTokens: 20 }, usageKnown: true })
    expect(promptText(mock.doGenerateCalls[3]?.prompt as never).at(-1)).toMatch(/^NO_PROGRESS/)
    // The forced step: only the other tool is active, and the earlier nudge was taken out again.
    expect(mock.doGenerateCalls[4]?.tools?.map((t) => t.name)).toEqual(['lookup'])
    expect(promptText(mock.doGenerateCalls[4]?.prompt as never).filter((t) => t.startsWith('NO_PROGRESS'))).toHaveLength(1)
    expect(JSON.stringify(result.response.messages)).not.toContain('NO_PROGRESS')
  })

  it('refuses a misspelt option with a suggestion', () => {
    expect(() => noProgressSteps({ tool: ['a'] } as never)).toThrow(/noProgressSteps.*tools/s)
  })
})

describe('noProgressSteps called with what the AI SDK never passes', () => {
  it('refuses options that are no { steps } with a TypeError naming the hook', () => {
    const loop = noProgressSteps()
    const stopWhen = loop.stopWhen as (options: unknown) => boolean
    const prepareStep = loop.prepareStep as (options: unknown) => unknown
    expect(() => stopWhen(null)).toThrow(new TypeError('noProgressSteps.stopWhen: options must be { steps, ... } (what the AI SDK passes), got null'))
    expect(() => stopWhen({ steps: 42 })).toThrow(new TypeError('noProgressSteps.stopWhen: options.steps must be an array of steps, got number'))
    expect(() => prepareStep(undefined)).toThrow(/noProgressSteps\.prepareStep: options must be/)
    expect(() => prepareStep({ steps: [], messages: null })).toThrow(/noProgressSteps\.prepareStep: options\.messages must be an array of messages, got null/)
    expect(stopWhen({ steps: [] })).toBe(false)
  })
})

describe('no-progress ladder in the LangChain middleware', () => {
  it('nudges, withholds the tool for one call, then stops with no-progress; the state never holds the nudge', async () => {
    const model = fakeModel()
    for (let i = 0; i < 10; i++) model.respondWithTools([{ name: 'search', args: { q: 'refund policy' }, id: `c${i}` }])
    model.respond(new AIMessage('done'))
    const ran: string[] = []
    const search = lcTool(async ({ q }: { q: string }) => (ran.push(q), 'no hits'), {
      name: 'search',
      description: 'Search',
      schema: z.object({ q: z.string() }),
    })
    const lookup = lcTool(async () => 'nothing', { name: 'lookup', description: 'Look up', schema: z.object({ q: z.string() }) })
    const middleware = langChainMiddleware()
    const seen: GateEventMap['no_progress'][] = []
    middleware.on('no_progress', (e) => seen.push(e))
    const requests: { tools: string[]; toolChoice: unknown; last: string }[] = []
    const spy = createMiddleware({
      name: 'Spy',
      wrapModelCall: (request, handler) => {
        requests.push({
          tools: request.tools.map((t) => String((t as { name?: unknown }).name)),
          toolChoice: request.toolChoice,
          last: String(request.messages.at(-1)?.text ?? ''),
        })
        return handler(request)
      },
    })
    const agent = createAgent({ model, tools: [search, lookup], middleware: [middleware, spy] })
    const error = await agent.invoke({ messages: [{ role: 'user', content: 'refunds?' }] }).catch((e: unknown) => e)
    const cause = (error as { cause?: unknown }).cause
    expect(isReliabilityFailFastError(cause) && cause.kind).toBe('no-progress')
    expect(seen.map((e) => [e.host, e.step, e.count])).toEqual([
      ['langchain', 'nudge', 3],
      ['langchain', 'forced-change', 4],
      ['langchain', 'stop', 5],
    ])
    expect(requests).toHaveLength(5)
    expect(requests[3]?.last).toMatch(/^NO_PROGRESS/)
    expect(requests[4]?.tools).toEqual(['lookup'])
    expect(ran).toHaveLength(5)
  })

  it('withholds a tool the caller pinned with toolChoice, asking for another tool instead of naming one the call no longer offers', async () => {
    const model = fakeModel()
    for (let i = 0; i < 10; i++) model.respondWithTools([{ name: 'search', args: { q: 'refund policy' }, id: `c${i}` }])
    const search = lcTool(async () => 'no hits', { name: 'search', description: 'Search', schema: z.object({ q: z.string() }) })
    const lookup = lcTool(async () => 'nothing', { name: 'lookup', description: 'Look up', schema: z.object({ q: z.string() }) })
    const pin = createMiddleware({
      name: 'Pin',
      wrapModelCall: (request, handler) => handler({ ...request, toolChoice: { type: 'function', function: { name: 'search' } } } as typeof request),
    })
    const choices: unknown[] = []
    const spy = createMiddleware({
      name: 'Spy',
      wrapModelCall: (request, handler) => {
        choices.push([request.tools.map((t) => String((t as { name?: unknown }).name)), request.toolChoice])
        return handler(request)
      },
    })
    const error = await createAgent({ model, tools: [search, lookup], middleware: [pin, langChainMiddleware(), spy] })
      .invoke({ messages: [{ role: 'user', content: 'refunds?' }] })
      .catch((e: unknown) => e)
    // Each middleware around ours wraps the failure in a MiddlewareError of its own.
    let failure = error
    while (!isReliabilityFailFastError(failure) && failure instanceof Error && failure.cause !== undefined) failure = failure.cause
    expect(isReliabilityFailFastError(failure) && failure.kind).toBe('no-progress')
    expect(choices[4]).toEqual([['lookup'], 'required'])
  })

  it('leaves a run that makes progress alone', async () => {
    const model = fakeModel()
    for (const q of ['a', 'b', 'c', 'd', 'e']) model.respondWithTools([{ name: 'search', args: { q }, id: `c${q}` }])
    model.respond(new AIMessage('done'))
    const search = lcTool(async () => 'hits', { name: 'search', description: 'Search', schema: z.object({ q: z.string() }) })
    const middleware = langChainMiddleware()
    const seen: unknown[] = []
    middleware.on('no_progress', (e) => seen.push(e))
    const result = await createAgent({ model, tools: [search], middleware: [middleware] }).invoke({ messages: [{ role: 'user', content: 'go' }] })
    expect(result.messages.at(-1)?.text).toBe('done')
    expect(seen).toEqual([])
  })
})
