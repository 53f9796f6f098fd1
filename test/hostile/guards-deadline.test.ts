import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { generateText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { Agent, contentGuard, isReliabilityFailFastError } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { reliabilityMiddleware as langchainMiddleware } from '../../src/integrations/langchain.ts'
import { scripted } from '../../src/providers/index.ts'

// A guard that never settles, with the longest timeout a guard may have: only the run can end it.
const hangs = (surface: 'input' | 'history') =>
  contentGuard('hangs', () => new Promise<never>(() => undefined), { surfaces: [surface], timeoutMs: 2 ** 31 - 1 })

async function failureOf(run: Promise<unknown>): Promise<{ kind: string; reason: string }> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isReliabilityFailFastError(error)) throw new Error(`expected a fail-fast error, got ${String(error)}`)
  return { kind: error.kind, reason: error.reason }
}

describe('Agent input guards cut short by the run', () => {
  it('end the run run-timeout, as every other surface does, when its runTimeoutMs passes while an input guard hangs', async () => {
    const provider = scripted(['never sent'])
    const agent = Agent.create({ provider, model: 'm', contentGuards: [hangs('input')] }).build()
    const failure = await failureOf(agent.run('hi', { runTimeoutMs: 30 }))
    expect(failure.kind).toBe('run-timeout')
    expect(failure.reason).toMatch(/runTimeoutMs/)
    expect(provider.requests).toHaveLength(0)
  })

  it('end the run aborted when its signal aborts while a history guard hangs', async () => {
    const provider = scripted(['first', 'never sent'])
    const agent = Agent.create({ provider, model: 'm', contentGuards: [hangs('history')] }).build()
    const session = await agent.session('s')
    const controller = new AbortController()
    // The first exchange has no history to screen; the second's history guard hangs until the abort.
    await session.run('hello')
    const second = session.run('again', { signal: controller.signal })
    controller.abort(new Error('user stop'))
    const failure = await failureOf(second)
    expect(failure.kind).toBe('aborted')
    expect(provider.requests).toHaveLength(1)
  })
})

describe('host middlewares: input guards cut short by the call', () => {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  }
  const modelCalls: string[] = []
  const model = () =>
    new MockLanguageModelV4({
      doGenerate: async () => {
        modelCalls.push('generate')
        return { content: [{ type: 'text', text: 'never read' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }
      },
      doStream: async () => {
        modelCalls.push('stream')
        throw new Error('never called')
      },
    })

  it('end an AI SDK generateText call run-timeout when the middleware runTimeoutMs passes while an input guard hangs', async () => {
    modelCalls.length = 0
    const middleware = reliabilityMiddleware({ runTimeoutMs: 30, contentGuards: [hangs('input')] })
    const failure = await failureOf(generateText({ model: wrapLanguageModel({ model: model(), middleware }), prompt: 'hi', maxRetries: 0 }))
    expect(failure.kind).toBe('run-timeout')
    expect(modelCalls).toEqual([])
  })

  it('end an AI SDK streamText call run-timeout the same way', async () => {
    modelCalls.length = 0
    const middleware = reliabilityMiddleware({ runTimeoutMs: 30, contentGuards: [hangs('input')] })
    const wrapped = wrapLanguageModel({ model: model(), middleware })
    const failure = await failureOf(Promise.resolve(wrapped.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] } as never)))
    expect(failure.kind).toBe('run-timeout')
    expect(modelCalls).toEqual([])
  })

  it('end a LangChain model turn run-timeout when the middleware runTimeoutMs passes while an input guard hangs', async () => {
    const chat = fakeModel().respond(new AIMessage('never read'))
    const agent = createAgent({ model: chat, tools: [], middleware: [langchainMiddleware({ runTimeoutMs: 30, contentGuards: [hangs('input')] })] })
    const error = await agent.invoke({ messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (e: unknown) => e,
    )
    const cause = (error as { cause?: unknown }).cause
    expect(isReliabilityFailFastError(cause) ? cause.kind : String(error)).toBe('run-timeout')
  })
})
