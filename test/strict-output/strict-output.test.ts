import { Type } from 'typebox'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  createGate,
  isReliabilityFailFastError,
  ProviderError,
  retryTruncated,
  strictOutput,
  truncatedFailFast,
  type GateEvent,
  type ReliabilityFailFastError,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const Message = Type.Object({ message: Type.String() }, { additionalProperties: false })
const request = { system: 'Answer in JSON.', messages: [{ role: 'user' as const, content: 'Say hi.' }] }

afterEach(() => {
  vi.useRealTimers()
})

describe('strictOutput', () => {
  it("runs pyconveyor's scenario: parse error, schema error, then success in three attempts", async () => {
    const provider = scripted(['not json at all', '{"message": 12345}', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput() })
    const result = await gate.run(request)
    expect(result.value).toEqual({ message: 'hi' })
    expect(result.attempts.map((a) => a.status)).toEqual(['parse_error', 'schema_error', 'success'])
    expect(result.attempts.map((a) => a.errorType)).toEqual(['parse', 'schema', undefined])
    expect(result.attempts[1]?.errors).toEqual(['message: expected string, got number'])
    expect(result.lastAttempt.attempt).toBe(3)
  })

  it('replaces the assistant/feedback pair on each retry instead of accumulating it', async () => {
    const provider = scripted(['not json at all', '{"message": 12345}', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput() })
    await gate.run(request)
    const third = provider.requests[2]
    expect(third?.system).toBe('Answer in JSON.')
    expect(third?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(third?.messages[1]?.content).toBe('{"message": 12345}')
    expect(third?.messages[2]?.content).toContain("- 'message': expected string, got number")
  })

  it('fails with every attempt on the error after maxAttempts, parse and schema alike', async () => {
    const provider = scripted(['nope', '{"message": 1}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ maxAttempts: 2 }) })
    const error = (await gate.run(request).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error.kind).toBe('schema-retry-exhausted')
    expect(error.attempts.map((a) => [a.status, a.errorType])).toEqual([
      ['parse_error', 'parse'],
      ['schema_error', 'schema'],
    ])
    expect(error.lastAttempt?.rawOutput).toBe('{"message": 1}')
  })

  it('resends the base request unchanged with errorFeedback false', async () => {
    const provider = scripted(['nope', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ errorFeedback: false }) })
    const result = await gate.run(request)
    expect(provider.requests[1]?.messages).toEqual(request.messages)
    expect(result.attempts[0]?.feedbackSent).toBeUndefined()
  })

  it('appends the retry hint to the built-in feedback', async () => {
    const provider = scripted(['nope', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ retryHint: 'Reply with {"message": ...} only.' }) })
    const result = await gate.run(request)
    expect(result.attempts[0]?.feedbackSent?.split('\n').at(-1)).toBe('Reply with {"message": ...} only.')
  })

  it('does not retry a category left out of retryOn', async () => {
    const provider = scripted(['{"message": 1}', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ retryOn: ['parse'] }) })
    await expect(gate.run(request)).rejects.toMatchObject({ kind: 'schema-retry-exhausted' })
    expect(provider.calls).toBe(1)
  })

  it('returns the parsed value with warnings in partial mode, and still retries parse errors', async () => {
    const provider = scripted(['nope', '{"message": 12345}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ schemaStrict: false }) })
    const result = await gate.run(request)
    expect(result.value).toEqual({ message: 12345 })
    expect(result.warnings?.issues.map((i) => i.path)).toEqual(['message'])
    expect(result.attempts.map((a) => a.status)).toEqual(['parse_error', 'schema_error'])
    expect(result.lastAttempt.ruleKind).toBe('schema-partial')
  })

  it('accepts a repaired answer at once, with the repaired event and flag', async () => {
    const provider = scripted(["<tool_call>{'message': 'hi',}</tool_call>"])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput() })
    const repaired: GateEvent[] = []
    gate.events$.subscribe((e) => {
      if (e.type === 'repaired') repaired.push(e)
    })
    const result = await gate.run(request)
    expect(result.value).toEqual({ message: 'hi' })
    expect(result.lastAttempt.repaired).toBe(true)
    expect(repaired).toEqual([
      {
        type: 'repaired',
        runId: expect.any(String),
        attempt: 1,
        provider: 'scripted',
        repairs: expect.arrayContaining(['tool-call-tags', 'single-quotes', 'trailing-comma']),
      },
    ])
  })

  it('retries rate limits after the retry-after the provider asked for', async () => {
    vi.useFakeTimers()
    const limited = new ProviderError('slow down', { kind: 'rate-limit', status: 429, retryAfterMs: 7000 })
    const provider = scripted([limited, '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ retryOn: ['rate_limit'] }) })
    const run = gate.run(request)
    await vi.advanceTimersByTimeAsync(6999)
    expect(provider.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    await expect(run).resolves.toMatchObject({ value: { message: 'hi' } })
    expect(provider.calls).toBe(2)
  })

  it('retries timeouts and 5xx with backoff when listed, and fails fast when not', async () => {
    vi.useFakeTimers()
    const provider = scripted([new ProviderError('gateway', { kind: 'http-5xx', status: 502 }), '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ retryOn: ['http_error'], backoff: () => 500 }) })
    const run = gate.run(request)
    await vi.advanceTimersByTimeAsync(500)
    await expect(run).resolves.toMatchObject({ attempts: [{ status: 'http_error', errorType: 'ProviderError' }, { status: 'success' }] })

    const noRetry = scripted([new ProviderError('gateway', { kind: 'http-5xx', status: 502 }), '{"message": "hi"}'])
    const strict = createGate({ providers: noRetry, outputSchema: Message, ...strictOutput({ retryOn: ['parse', 'schema'] }) })
    await expect(strict.run(request)).rejects.toMatchObject({ kind: 'http-5xx' })
    expect(noRetry.calls).toBe(1)
  })

  it('makes one attempt and sends no feedback for a step without a schema', () => {
    const config = strictOutput({ hasSchema: false })
    expect(config.maxAttempts).toBe(1)
    expect(config.errorFeedback).toBe(false)
    expect(strictOutput().maxAttempts).toBe(3)
    expect(strictOutput().maxFeedbackTokens).toBe(4000)
  })

  it('renders a template that fails as the built-in feedback and emits template_error', async () => {
    const provider = scripted(['nope', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ errorTemplate: '{% for %}' }) })
    const errors: unknown[] = []
    gate.on('template_error', (e) => errors.push(e))
    const result = await gate.run(request)
    expect(errors).toHaveLength(1)
    expect(result.attempts[0]?.feedbackSent).toMatch(/^Your previous response was not valid JSON/)
  })
})

describe('retryTruncated', () => {
  it('retries a cut answer with a doubled maxTokens, then fails fast with the explanation at the cap', async () => {
    const cut = { content: '{"message": "a very long', stopReason: 'max_tokens' as const, usage: { inputTokens: 5, outputTokens: 100 } }
    const provider = scripted([cut, { ...cut, usage: { inputTokens: 5, outputTokens: 200 } }, '{"message": "hi"}'])
    const gate = createGate({
      providers: provider,
      outputSchema: Type.Object({ message: Type.String(), more: Type.String() }),
      repair: false,
      postDecide: [retryTruncated({ maxTokensCap: 200 }), truncatedFailFast],
    })
    const error = (await gate.run({ ...request, maxTokens: 100 }).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(provider.requests.map((r) => r.maxTokens)).toEqual([100, 200])
    expect(error.kind).toBe('truncated')
    expect(error.attempts.map((a) => a.status)).toEqual(['truncated', 'truncated'])
  })
})
