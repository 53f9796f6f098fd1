import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { generateText, streamText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent, createMiddleware } from 'langchain'
import { describe, expect, it } from 'vitest'
import { type GateEventMap, isReliabilityFailFastError, retryTransient } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { reliabilityMiddleware as langchainMiddleware } from '../../src/integrations/langchain.ts'

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] }
const kindOf = (error: unknown): string => {
  const cause = isReliabilityFailFastError(error) ? error : (error as { cause?: unknown } | undefined)?.cause
  return isReliabilityFailFastError(cause) ? cause.kind : `untyped: ${String(error)}`
}
/** A middleware inside the gate's that answers `answers[n]` on call n instead of the model. */
const answering = (answers: readonly unknown[]) => {
  let n = 0
  return createMiddleware({ name: 'Answers', wrapModelCall: async () => answers[Math.min(n++, answers.length - 1)] as AIMessage })
}

describe('host middlewares: model answers that are no answer', () => {
  it.each([
    ['null', null],
    ['a number', 42],
    ['a result whose content parts are null', { content: [null], finishReason: { unified: 'stop', raw: undefined }, warnings: [] }],
  ])('types an AI SDK model result that is %s as malformed-response, never a TypeError of the middleware', async (_name, answer) => {
    const model = new MockLanguageModelV4({ doGenerate: async () => answer as never })
    const error = await generateText({ model: wrapLanguageModel({ model, middleware: reliabilityMiddleware() }), prompt: 'hi', maxRetries: 0 }).catch(
      (e: unknown) => e,
    )
    expect(kindOf(error)).toBe('malformed-response')
  })

  it.each([
    ['null', null],
    ['a result without a stream', {}],
    ['a result whose stream is a string', { stream: 'text' }],
  ])('types an AI SDK streamed result that is %s as malformed-response', async (_name, answer) => {
    const model = new MockLanguageModelV4({ doStream: async () => answer as never })
    const errors: unknown[] = []
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: reliabilityMiddleware() }),
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    })
    for await (const _ of result.fullStream) {
      // Read to the end: the failure arrives as the stream's error part.
    }
    expect(errors.map(kindOf)).toEqual(['malformed-response'])
  })

  it.each([
    ['null', null],
    ['a result without a stream', {}],
  ])('types an AI SDK streamed result that is %s as malformed-response in the aiSdk adapter too', async (_name, answer) => {
    const provider = aiSdk(new MockLanguageModelV4({ doStream: async () => answer as never }))
    const error = await (async () => {
      for await (const _ of provider.stream?.(ask) ?? []) {
        // Read to the end: the failure is thrown by the stream.
      }
    })().catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'ProviderError', kind: 'malformed-response' })
  })

  it.each([
    ['whose content parts are null', new AIMessage({ content: [null as never] })],
    ['whose tool calls hold null', Object.assign(new AIMessage('x'), { tool_calls: [null] })],
  ])('types a LangChain AIMessage %s as malformed-response, which retryTransient retries', async (_name, broken) => {
    const middleware = langchainMiddleware({ postDecide: [retryTransient({ backoff: () => 0 })] })
    const kinds: string[] = []
    middleware.on('attempt_end', (e) => kinds.push(e.errorKind))
    const agent = createAgent({ model: fakeModel(), tools: [], middleware: [middleware, answering([broken, new AIMessage('fine')])] })
    const result = await agent.invoke(ask)
    expect(result.messages.at(-1)?.text).toBe('fine')
    expect(kinds).toEqual(['malformed-response', 'ok'])
  })

  it('estimates a LangChain answer that reports no usage and prices it: a call is never free', async () => {
    const middleware = langchainMiddleware({ pricing: { 'gpt-test': { input: 1000, output: 1000 } } })
    const ends: GateEventMap['run_end'][] = []
    middleware.on('run_end', (e) => ends.push(e))
    const model = Object.assign(fakeModel().respond(new AIMessage('a reply of some length')), { model: 'gpt-test' })
    await createAgent({ model, tools: [], middleware: [middleware] }).invoke(ask)
    expect(ends).toHaveLength(1)
    expect(ends[0]?.usage.estimated).toBe(true)
    expect(ends[0]?.usage.outputTokens).toBeGreaterThan(0)
    expect(ends[0]?.costUsd).toBeGreaterThan(0)
  })

  it('reads the usage a LangChain answer reports as it is', async () => {
    const middleware = langchainMiddleware()
    const ends: GateEventMap['run_end'][] = []
    middleware.on('run_end', (e) => ends.push(e))
    const reply = Object.assign(new AIMessage('ok'), { usage_metadata: { input_tokens: 12, output_tokens: 3, total_tokens: 15 } })
    await createAgent({ model: fakeModel(), tools: [], middleware: [middleware, answering([reply])] }).invoke(ask)
    expect(ends[0]?.usage).toEqual({ inputTokens: 12, outputTokens: 3 })
  })
})
