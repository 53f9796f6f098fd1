import { generateText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { contentGuard, isReliabilityFailFastError } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
const done = { content: [{ type: 'text' as const, text: 'Done.' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] }

describe('AI SDK reliabilityMiddleware input guards cut short by the abort signal', () => {
  it('end the call aborted, not guard-blocked, and call no model', async () => {
    const hangs = contentGuard('hangs', () => new Promise<never>(() => undefined), { surfaces: ['input'], timeoutMs: 2 ** 31 - 1 })
    const mock = new MockLanguageModelV4({ doGenerate: [done] })
    const model = wrapLanguageModel({ model: mock, middleware: reliabilityMiddleware({ contentGuards: [hangs] }) })
    const controller = new AbortController()
    const pending = generateText({ model, prompt: 'hello', abortSignal: controller.signal, maxRetries: 0 }).catch((e: unknown) => e)
    setTimeout(() => controller.abort(new Error('user stop')), 10)
    const error = await pending
    const failure = isReliabilityFailFastError(error) ? error : (error as { cause?: unknown }).cause
    expect(isReliabilityFailFastError(failure) && failure.kind).toBe('aborted')
    expect(mock.doGenerateCalls).toHaveLength(0)
  })
})
