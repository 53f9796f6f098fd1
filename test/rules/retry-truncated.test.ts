import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, retryTruncated, truncatedFailFast, type ReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import type { ModelRequest, Provider } from '../../src/index.ts'

const Message = Type.Object({ message: Type.String() }, { additionalProperties: false })
const request = { system: 'Answer in JSON.', messages: [{ role: 'user' as const, content: 'Say hi.' }] }

describe('retryTruncated and truncatedFailFast', () => {
  it('fails fast with kind truncated and says why in the reason', async () => {
    const cut = { content: '{"message": "a long', stopReason: 'max_tokens' as const }
    const gate = createGate({ providers: scripted([cut]), outputSchema: Message, repair: false, postDecide: [truncatedFailFast] })
    const error = (await gate.run(request).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.kind).toBe('truncated')
    expect(error.reason).toContain('cut by the token limit')
    expect(error.attempts[0]?.errorKind).toBe('truncated')
  })

  it('retries with a larger maxTokens and then succeeds', async () => {
    const provider = scripted([{ content: '{"message": "a lo', stopReason: 'max_tokens' }, '{"message": "a long answer"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, repair: false, postDecide: [retryTruncated(), truncatedFailFast] })
    const result = await gate.run({ ...request, maxTokens: 64 })
    expect(provider.requests.map((r) => r.maxTokens)).toEqual([64, 128])
    expect(result.attempts.map((a) => a.status)).toEqual(['truncated', 'success'])
  })

  it('stops at maxTokensCap when the provider reports no usage (a stream without its usage chunk)', async () => {
    const asked: (number | undefined)[] = []
    const noUsage: Provider = {
      name: 'no-usage',
      complete: async (r: ModelRequest) => {
        asked.push(r.maxTokens)
        return { content: '{"message": "a lo', toolCalls: [], usage: { inputTokens: Number.NaN, outputTokens: Number.NaN }, stopReason: 'max_tokens' }
      },
    }
    const gate = createGate({
      providers: noUsage,
      outputSchema: Message,
      repair: false,
      postDecide: [retryTruncated({ maxTokensCap: 16_384 }), truncatedFailFast],
    })
    const error = (await gate.run(request).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(asked).toEqual([undefined, 8192, 16_384])
    expect(error.kind).toBe('truncated')
  })

  it('stops at maxTokensCap when the reported output tokens are fewer than the limit the attempt asked for', async () => {
    const cut = { content: '{"message": "a lo', stopReason: 'max_tokens' as const, usage: { inputTokens: 5, outputTokens: 5 } }
    const provider = scripted(Array.from({ length: 10 }, () => cut))
    const gate = createGate({
      providers: provider,
      outputSchema: Message,
      repair: false,
      postDecide: [retryTruncated({ maxTokensCap: 400 }), truncatedFailFast],
    })
    const error = (await gate.run({ ...request, maxTokens: 100 }).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(provider.requests.map((r) => r.maxTokens)).toEqual([100, 200, 400])
    expect(error.kind).toBe('truncated')
  })
})
