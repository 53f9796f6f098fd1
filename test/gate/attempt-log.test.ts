import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, strictOutput, type ReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const Message = Type.Object({ message: Type.String() }, { additionalProperties: false })
const request = { system: 'Answer in JSON.', messages: [{ role: 'user' as const, content: 'Say hi.' }] }

describe('attempt log', () => {
  const setup = (maxAttempts: number) => {
    let clock = 0
    const provider = scripted([
      { content: 'not json', usage: { inputTokens: 1_000_000, outputTokens: 0 } },
      { content: '{"message": 1}', usage: { inputTokens: 0, outputTokens: 1_000_000 } },
      '{"message": "hi"}',
    ])
    const gate = createGate({
      providers: provider,
      model: 'm-1',
      outputSchema: Message,
      pricing: { 'm-1': { input: 2, output: 10 } },
      now: () => (clock += 5),
      ...strictOutput({ maxAttempts }),
    })
    return { provider, gate }
  }

  const expectedFirst = {
    attempt: 1,
    provider: 'scripted',
    model: 'm-1',
    status: 'parse_error',
    errorType: 'parse',
    // The parser's own message, as pyconveyor logs a parse error (errors = [str(e)]), without the stage prefix of `message`.
    errors: ['no JSON object or array found in the response'],
    issues: [],
    rawOutput: 'not json',
    usage: { inputTokens: 1_000_000, outputTokens: 0 },
    costUsd: 2,
    decision: 'retry',
    ruleKind: 'parse-retry',
    feedbackSent: expect.stringMatching(/^Your previous response was not valid JSON/),
    repaired: false,
    elapsedMs: expect.any(Number),
  }

  it('records every field on each attempt of a thrown error', async () => {
    const { gate } = setup(2)
    const error = (await gate.run(request).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.attempts).toHaveLength(2)
    expect(error.attempts[0]).toMatchObject(expectedFirst)
    expect(error.attempts[1]).toMatchObject({
      attempt: 2,
      status: 'schema_error',
      errorType: 'schema',
      // pyconveyor's attempt-log line, f"{e.loc_str}: {e.msg}": the template's loc_str and msg.
      errors: ['message: expected string, got number'],
      issues: [expect.objectContaining({ path: 'message' })],
      rawOutput: '{"message": 1}',
      costUsd: 10,
      decision: 'fail-fast',
      ruleKind: 'schema-retry-exhausted',
      feedbackSent: undefined,
    })
    expect(error.lastAttempt).toBe(error.attempts[1])
    expect((error.attempts[1]?.elapsedMs ?? 0) > (error.attempts[0]?.elapsedMs ?? 0)).toBe(true)
    expect(error.costUsd).toBe(12)
  })

  it('records every field on each attempt of a success', async () => {
    const { gate } = setup(3)
    const result = await gate.run(request)
    expect(result.attempts[0]).toMatchObject(expectedFirst)
    expect(result.lastAttempt).toMatchObject({
      attempt: 3,
      status: 'success',
      errorType: undefined,
      errors: [],
      decision: 'ok',
      ruleKind: 'ok',
      feedbackSent: undefined,
      rawOutput: '{"message": "hi"}',
    })
    expect(result.costUsd).toBeGreaterThan(12)
  })
})
