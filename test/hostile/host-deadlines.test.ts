import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { generateText, jsonSchema, streamText, tool as aiTool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent, createMiddleware, tool } from 'langchain'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { guard, isReliabilityFailFastError } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { reliabilityMiddleware as langchainMiddleware } from '../../src/integrations/langchain.ts'
import { waitingModel } from '../adapters/support/waiting-model.ts'

// A tool guard that never settles: only the call's deadline or abort can end it.
const hangs = guard('hangs', () => new Promise<never>(() => undefined))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const kindOf = (error: unknown): string => {
  const cause = isReliabilityFailFastError(error) ? error : (error as { cause?: unknown } | undefined)?.cause
  return isReliabilityFailFastError(cause) ? cause.kind : `untyped: ${String(error)}`
}
const settled = (run: Promise<unknown>): Promise<string> => run.then(() => 'ok', kindOf)

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const lookup = aiTool({
  description: 'find an order',
  inputSchema: jsonSchema<{ orderId: string }>({ type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] }),
  execute: async () => 'delivered',
})
const toolCall = (input: string) => ({
  content: [{ type: 'tool-call' as const, toolCallId: 'c1', toolName: 'lookup', input }],
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
})
const echo = tool(async ({ text }: { text: string }) => `echo ${text}`, {
  name: 'echo',
  description: 'Echoes its text',
  schema: z.object({ text: z.string() }),
})
const ask = { messages: [{ role: 'user' as const, content: 'echo' }] }

afterEach(() => vi.useRealTimers())

describe('AI SDK reliabilityMiddleware: runTimeoutMs bounds the whole call', () => {
  it('ends a call run-timeout when its tool-argument re-ask runs past the call deadline (the re-ask starts no deadline of its own)', async () => {
    vi.useFakeTimers()
    const answers = [toolCall('{"orderId": 7}'), toolCall('{"orderId": "42"}')]
    // Each model call takes 20 ms: the first answers by 20, the re-ask would by 40, past the call's 30.
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        await sleep(20)
        return answers.shift() as never
      },
    })
    const middleware = reliabilityMiddleware({ runTimeoutMs: 30 })
    const run = settled(generateText({ model: wrapLanguageModel({ model, middleware }), tools: { lookup }, prompt: 'find 42', maxRetries: 0 }))
    await vi.advanceTimersByTimeAsync(100)
    expect(await run).toBe('run-timeout')
  })

  it('ends a call run-timeout when a tool guard never settles, and aborted when the caller aborts it', async () => {
    const model = () => new MockLanguageModelV4({ doGenerate: async () => toolCall('{"orderId": "42"}') as never })
    const late = reliabilityMiddleware({ runTimeoutMs: 30, toolGuards: [hangs] })
    expect(await settled(generateText({ model: wrapLanguageModel({ model: model(), middleware: late }), tools: { lookup }, prompt: 'x', maxRetries: 0 }))).toBe(
      'run-timeout',
    )
    const controller = new AbortController()
    const aborted = reliabilityMiddleware({ toolGuards: [hangs] })
    const run = generateText({
      model: wrapLanguageModel({ model: model(), middleware: aborted }),
      tools: { lookup },
      prompt: 'x',
      maxRetries: 0,
      abortSignal: controller.signal,
    })
    setTimeout(() => controller.abort(), 10)
    expect(await settled(run)).toBe('aborted')
  })

  it('ends a stalled streamText call run-timeout, as generateText does, not aborted', async () => {
    const { doStream } = waitingModel(['{"order'])
    const middleware = reliabilityMiddleware({ runTimeoutMs: 30 })
    const errors: unknown[] = []
    const result = streamText({
      model: wrapLanguageModel({ model: new MockLanguageModelV4({ doStream }), middleware }),
      prompt: 'x',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    })
    for await (const _ of result.fullStream) {
      // Read to the end: the middleware reports its failure as the stream's error part.
    }
    expect(errors.map(kindOf)).toEqual(['run-timeout'])
  })
})

describe('LangChain reliabilityMiddleware: runTimeoutMs bounds the whole model turn', () => {
  it("ends a turn run-timeout when its tool-argument re-ask runs past the turn's deadline", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    // Each model call takes 20 ms (a middleware inside the gate's): the re-ask would answer by 40, past the turn's 30.
    const slow = createMiddleware({
      name: 'Slow',
      wrapModelCall: async (request, handler) => {
        await sleep(20)
        return handler(request)
      },
    })
    const model = fakeModel()
      .respondWithTools([{ name: 'echo', args: { text: 7 }, id: 'c1' }])
      .respondWithTools([{ name: 'echo', args: { text: 'a' }, id: 'c1' }])
      .respond(new AIMessage('done'))
    const agent = createAgent({ model, tools: [echo], middleware: [langchainMiddleware({ runTimeoutMs: 30 }), slow] })
    const run = settled(agent.invoke(ask))
    for (let i = 0; i < 20; i++) await vi.advanceTimersByTimeAsync(10)
    expect(await run).toBe('run-timeout')
  })

  it('ends a turn run-timeout when a tool guard never settles', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: 'echo', args: { text: 'a' }, id: 'c1' }])
      .respond(new AIMessage('done'))
    const agent = createAgent({ model, tools: [echo], middleware: [langchainMiddleware({ runTimeoutMs: 30, toolGuards: [hangs] })] })
    expect(await settled(agent.invoke(ask))).toBe('run-timeout')
  })
})
