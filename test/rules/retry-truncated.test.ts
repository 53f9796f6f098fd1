import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, retryTruncated, truncatedFailFast, type ReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

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
})
