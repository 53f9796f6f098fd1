import { generateText, isStepCount, jsonSchema, streamText, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { guard, isReliabilityFailFastError, type GateEventMap, type ReliabilityFailFastError } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
const searchCall = (id: string, input: string) => ({
  content: [{ type: 'tool-call' as const, toolCallId: id, toolName: 'search', input }],
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
})
const answer = { content: [{ type: 'text' as const, text: 'Done.' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] }
const Query = jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false })
const tools = { search: tool({ description: 'Search', inputSchema: Query, execute: async () => 'no hits' }) }

/** A guard that never answers for the arguments `q` it is told to hold (a classifier that hangs). */
const hangsOn = (q: unknown) =>
  guard('slowClassifier', (args: unknown) => ((args as { q?: unknown }).q === q ? new Promise<never>(() => undefined) : { ok: true }), { checksRawInput: true })

/** The gate's error behind whatever the AI SDK wraps it in. */
const failureOf = (error: unknown): ReliabilityFailFastError | undefined => {
  const cause = (error as { cause?: unknown } | undefined)?.cause
  return isReliabilityFailFastError(error) ? error : isReliabilityFailFastError(cause) ? cause : undefined
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('AI SDK reliabilityMiddleware: the tool-argument loop within the call deadline', () => {
  it('ends a guard that never answers at runTimeoutMs as run-timeout, with the attempts spent and fail_fast first', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: [searchCall('c1', '{"q":"refunds"}'), answer] })
    const middleware = reliabilityMiddleware({ runTimeoutMs: 20, toolGuards: [hangsOn('refunds')] })
    const failFast: GateEventMap['fail_fast'][] = []
    middleware.on('fail_fast', (e) => failFast.push(e))
    const error = await generateText({ model: wrapLanguageModel({ model: mock, middleware }), tools, prompt: 'refunds?', maxRetries: 0 }).catch(
      (e: unknown) => e,
    )
    const failure = failureOf(error)
    expect(failure?.kind).toBe('run-timeout')
    expect(failure?.attempts).toHaveLength(1)
    expect(failFast.map((e) => e.kind)).toEqual(['run-timeout'])
    expect(mock.doGenerateCalls).toHaveLength(1)
  })

  it('ends a guard that never answers on a retry input as aborted, typed, when the caller aborts', async () => {
    const controller = new AbortController()
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        if (mock.doGenerateCalls.length === 1) return searchCall('c1', '{"q":1}')
        queueMicrotask(() => setTimeout(() => controller.abort(new Error('user left')), 5))
        return searchCall('c2', '{"q":"fixed"}')
      },
    })
    const middleware = reliabilityMiddleware({ toolGuards: [hangsOn('fixed')] })
    const run = generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools,
      prompt: 'refunds?',
      maxRetries: 0,
      abortSignal: controller.signal,
    })
    const failure = failureOf(await run.catch((e: unknown) => e))
    expect(failure?.kind).toBe('aborted')
    // The first answer and its retry: both were paid for.
    expect(failure?.attempts).toHaveLength(2)
  })

  it('gives a retry what is left of the call deadline, never a fresh runTimeoutMs of its own', async () => {
    // Each model call answers in 60 ms, within runTimeoutMs alone; the first answer and its retry together do not.
    const script = [searchCall('c1', '{"q":1}'), searchCall('c2', '{"q":"refunds"}'), answer]
    let next = 0
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        await sleep(60)
        return script[next++] as typeof answer
      },
    })
    const middleware = reliabilityMiddleware({ runTimeoutMs: 100 })
    const error = await generateText({ model: wrapLanguageModel({ model: mock, middleware }), tools, prompt: 'refunds?', maxRetries: 0 }).catch(
      (e: unknown) => e,
    )
    expect(failureOf(error)?.kind).toBe('run-timeout')
    expect(mock.doGenerateCalls).toHaveLength(2)
  })

  it('ends a guard that never answers in a streamed call at runTimeoutMs as run-timeout', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: [searchCall('c1', '{"q":"refunds"}'), answer] })
    const chunks = [
      { type: 'tool-call' as const, toolCallId: 'c1', toolName: 'search', input: '{"q":"refunds"}' },
      { type: 'finish' as const, finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' }, usage },
    ]
    mock.doStream = async () => ({
      stream: new ReadableStream({
        start(c) {
          for (const chunk of chunks) c.enqueue(chunk)
          c.close()
        },
      }),
    })
    const middleware = reliabilityMiddleware({ runTimeoutMs: 20, toolGuards: [hangsOn('refunds')] })
    const errors: unknown[] = []
    const result = streamText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools,
      prompt: 'refunds?',
      maxRetries: 0,
      stopWhen: isStepCount(1),
      onError: ({ error }) => void errors.push(error),
    })
    await result.consumeStream()
    expect(errors.map((e) => failureOf(e)?.kind)).toEqual(['run-timeout'])
  })
})
