import { Type } from 'typebox'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, createGate, ProviderError, strictOutput, type GateEvent, type ReliabilityFailFastError } from '../../src/index.ts'
import { countFeedbackTokens } from '../../src/validation/building-blocks.ts'
import { scripted } from '../../src/providers/index.ts'
import { TRUNCATION_MARKER } from '../../src/validation/index.ts'

const Message = Type.Object({ message: Type.String() }, { additionalProperties: false })
const Report = Type.Object({ entries: Type.Array(Type.Object({ evidence: Type.String() })) })
const request = { system: 'Answer in JSON.', messages: [{ role: 'user' as const, content: 'Say hi.' }] }

afterEach(() => {
  vi.useRealTimers()
})

/** Runs a gate over fake timers to completion and returns the settled outcome. */
async function settle<T>(run: Promise<T>): Promise<{ value?: T; error?: ReliabilityFailFastError }> {
  const outcome = run.then(
    (value) => ({ value }),
    (error: unknown) => ({ error: error as ReliabilityFailFastError }),
  )
  await vi.runAllTimersAsync()
  return outcome
}

describe('strictOutput retryOn', () => {
  it('retries a timeout after the backoff when timeout is listed', async () => {
    vi.useFakeTimers()
    const provider = scripted([new ProviderError('slow', { kind: 'timeout' }), '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ retryOn: ['timeout'], backoff: () => 300 }) })
    const run = gate.run(request)
    await vi.advanceTimersByTimeAsync(299)
    expect(provider.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    const result = await run
    expect(result.attempts.map((a) => [a.status, a.ruleKind])).toEqual([
      ['timeout', 'timeout-retry'],
      ['success', 'ok'],
    ])
  })

  it('fails fast on a timeout when timeout is left out', async () => {
    const provider = scripted([new ProviderError('slow', { kind: 'timeout' }), '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ retryOn: ['parse', 'schema', 'http_error', 'rate_limit'] }) })
    await expect(gate.run(request)).rejects.toMatchObject({ kind: 'timeout' })
    expect(provider.calls).toBe(1)
  })

  it('counts a network error as http_error', async () => {
    vi.useFakeTimers()
    const reset = () => new ProviderError('socket hang up', { kind: 'network' })
    const listed = scripted([reset(), '{"message": "hi"}'])
    const retried = await settle(createGate({ providers: listed, outputSchema: Message, ...strictOutput({ retryOn: ['http_error'] }) }).run(request))
    expect(retried.value?.attempts.map((a) => a.status)).toEqual(['network', 'success'])

    const unlisted = scripted([reset(), '{"message": "hi"}'])
    const failed = await settle(
      createGate({ providers: unlisted, outputSchema: Message, ...strictOutput({ retryOn: ['timeout', 'rate_limit'] }) }).run(request),
    )
    expect(failed.error?.kind).toBe('network')
    expect(unlisted.calls).toBe(1)
  })

  it('waits out the backoff schedule on a rate limit without retry-after', async () => {
    vi.useFakeTimers()
    const provider = scripted([new ProviderError('429', { kind: 'rate-limit', status: 429 }), '{"message": "hi"}'])
    const delays: number[] = []
    const gate = createGate({
      providers: provider,
      outputSchema: Message,
      ...strictOutput({ retryOn: ['rate_limit'], backoff: { initialMs: 800, jitter: 0 } }),
    })
    gate.on('retry', (e) => delays.push(e.delayMs))
    const run = gate.run(request)
    await vi.advanceTimersByTimeAsync(799)
    expect(provider.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    await expect(run).resolves.toMatchObject({ value: { message: 'hi' } })
    expect(delays).toEqual([800])
  })

  it('grows the backoff with each transport failure', async () => {
    vi.useFakeTimers()
    const fail = () => new ProviderError('bad gateway', { kind: 'http-5xx', status: 502 })
    const provider = scripted([fail(), fail(), '{"message": "hi"}'])
    const delays: number[] = []
    const gate = createGate({
      providers: provider,
      outputSchema: Message,
      ...strictOutput({ retryOn: ['http_error'], backoff: { initialMs: 100, factor: 3, jitter: 0 } }),
    })
    gate.on('retry', (e) => delays.push(e.delayMs))
    const outcome = await settle(gate.run(request))
    expect(outcome.value?.value).toEqual({ message: 'hi' })
    expect(delays).toEqual([100, 300])
  })

  it('fails fast on a rate limit when rate_limit is left out', async () => {
    const provider = scripted([new ProviderError('429', { kind: 'rate-limit', status: 429, retryAfterMs: 1 }), '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ retryOn: ['parse', 'schema'] }) })
    await expect(gate.run(request)).rejects.toMatchObject({ kind: 'rate-limit' })
    expect(provider.calls).toBe(1)
  })

  it('stops transport retries at maxAttempts total attempts', async () => {
    vi.useFakeTimers()
    const slow = () => new ProviderError('slow', { kind: 'timeout' })
    const provider = scripted([slow(), slow(), slow(), '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ retryOn: ['timeout'], backoff: () => 10 }) })
    const outcome = await settle(gate.run(request))
    expect(outcome.error?.kind).toBe('timeout')
    expect(outcome.error?.attempts.map((a) => a.status)).toEqual(['timeout', 'timeout', 'timeout'])
    expect(provider.calls).toBe(3)
  })

  it('fails fast on a parse error when parse is left out, whatever the schema category says', async () => {
    const provider = scripted(['not json at all', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ retryOn: ['schema'] }) })
    await expect(gate.run(request)).rejects.toMatchObject({ kind: 'schema-retry-exhausted', attempts: [{ status: 'parse_error' }] })
    expect(provider.calls).toBe(1)
  })
})

describe('strictOutput partial mode', () => {
  it('accepts the first schema failure without any retry', async () => {
    const provider = scripted(['{"message": 7}', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ schemaStrict: false }) })
    const result = await gate.run(request)
    expect(provider.calls).toBe(1)
    expect(result.value).toEqual({ message: 7 })
    expect(result.warnings?.stage).toBe('schema-validate')
  })

  it('still fails a parse error when parse is not in retryOn', async () => {
    const provider = scripted(['not json', '{"message": 7}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ schemaStrict: false, retryOn: ['schema'] }) })
    await expect(gate.run(request)).rejects.toMatchObject({ kind: 'schema-retry-exhausted' })
    expect(provider.calls).toBe(1)
  })

  it('hands the warnings to the agent run result', async () => {
    const agent = Agent.create({ provider: scripted(['{"message": 7}']), model: 'm' })
      .outputSchema(Message)
      .reliability(strictOutput({ schemaStrict: false }))
      .build()
    const result = await agent.runDetailed('hi')
    expect(result.value).toEqual({ message: 7 })
    expect(result.warnings?.issues.map((i) => i.path)).toEqual(['message'])
  })
})

describe('strictOutput through the agent', () => {
  it("runs pyconveyor's scenario in agent.reliability and commits only the accepted answer", async () => {
    const provider = scripted(['not json at all', '{"message": 12345}', '{"message": "hi"}'])
    const agent = Agent.create({ provider, model: 'm' }).system('Answer in JSON.').outputSchema(Message).reliability(strictOutput()).build()
    const result = await agent.runDetailed('Say hi.')
    expect(result.attempts.map((a) => a.status)).toEqual(['parse_error', 'schema_error', 'success'])
    expect(provider.requests[2]?.messages.map((m) => [m.role, m.ephemeral === true])).toEqual([
      ['user', false],
      ['assistant', true],
      ['user', true],
    ])
    expect(agent.history).toEqual([
      { role: 'user', content: 'Say hi.' },
      { role: 'assistant', content: '{"message": "hi"}' },
    ])
  })
})

describe('strictOutput feedback echo', () => {
  const longAnswer = `{"message": 1, "filler": "${Array.from({ length: 6000 }, (_, i) => `w${i}`).join(' ')}"}`

  it('cuts the retry tail (echoed previous output and feedback) at 4000 real tokens by default, with the marker', async () => {
    const provider = scripted([longAnswer, '{"message": "hi"}'])
    await createGate({ providers: provider, outputSchema: Message, ...strictOutput() }).run(request)
    const echo = provider.requests[1]?.messages[1]?.content ?? ''
    const feedback = provider.requests[1]?.messages[2]?.content ?? ''
    expect(echo.endsWith(`\n${TRUNCATION_MARKER}`)).toBe(true)
    expect(TRUNCATION_MARKER).toBe('[…truncated for length…]')
    const body = echo.slice(0, -TRUNCATION_MARKER.length - 1)
    expect(longAnswer.startsWith(body)).toBe(true)
    const tokens = countFeedbackTokens(echo) + countFeedbackTokens(feedback)
    expect(tokens).toBeLessThanOrEqual(4000)
    expect(tokens).toBeGreaterThan(3990)
  })

  it('honours a smaller maxFeedbackTokens in the retry request and the template variable', async () => {
    const provider = scripted([longAnswer, '{"message": "hi"}'])
    const template = (v: { previous_output: string; max_feedback_tokens: number }) => `cap=${v.max_feedback_tokens} echoed=${v.previous_output.length}`
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ maxFeedbackTokens: 25, errorTemplate: template }) })
    const result = await gate.run(request)
    const echo = provider.requests[1]?.messages[1]?.content ?? ''
    const feedback = provider.requests[1]?.messages[2]?.content ?? ''
    // The template sees the echo cut to the whole bound; the tail itself, echo and feedback together, fits it.
    expect(feedback).toMatch(/^cap=25 echoed=\d+$/)
    expect(result.attempts[0]?.feedbackSent).toBe(feedback)
    expect(countFeedbackTokens(echo) + countFeedbackTokens(feedback)).toBeLessThanOrEqual(25)
    expect(echo.endsWith(`\n${TRUNCATION_MARKER}`)).toBe(true)
  })

  it('leaves the base request unchanged on a blind retry even after earlier feedback', async () => {
    const provider = scripted(['nope', '{"message": 1}', '{"message": "hi"}'])
    await createGate({ providers: provider, outputSchema: Message, ...strictOutput({ errorFeedback: false }) }).run(request)
    expect(provider.requests.map((r) => r.messages)).toEqual([request.messages, request.messages, request.messages])
  })
})

describe('strictOutput templates', () => {
  it('renders a pyconveyor Jinja template with bracketed index paths and the attempt about to be made', async () => {
    const provider = scripted(['{"entries": [{"evidence": 1}]}', '{"entries": [{"evidence": 2}]}', '{"entries": [{"evidence": "x"}]}'])
    const template = '[{{ attempt }}] {{ error_type }}{% for e in errors %} {{ e.loc_str }}={{ e.type }}{% endfor %}'
    const gate = createGate({ providers: provider, outputSchema: Report, ...strictOutput({ errorTemplate: template }) })
    const result = await gate.run(request)
    expect(result.attempts.map((a) => a.feedbackSent)).toEqual([
      '[2] schema entries[0].evidence=invalid_type',
      '[3] schema entries[0].evidence=invalid_type',
      undefined,
    ])
    expect(result.attempts[0]?.errors).toEqual(['entries[0].evidence: expected string, got number'])
  })

  it('emits template_error with the attempt and keeps running on the built-in feedback', async () => {
    const provider = scripted(['{"message": 1}', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ errorTemplate: '{{ errors[0].loc_str ' }) })
    const events: GateEvent[] = []
    gate.events$.subscribe((e) => {
      if (e.type === 'template_error') events.push(e)
    })
    const result = await gate.run(request)
    expect(events).toEqual([{ type: 'template_error', runId: expect.any(String), attempt: 1, error: expect.anything() }])
    expect(provider.requests[1]?.messages.at(-1)?.content).toContain("- 'message': expected string, got number")
    expect(result.value).toEqual({ message: 'hi' })
  })
})

describe('strictOutput repair', () => {
  it('keeps the parse error, with no repaired event or flag, when the repaired value fails the schema', async () => {
    const provider = scripted(["{'message': 5,}", '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput() })
    const repaired: GateEvent[] = []
    gate.events$.subscribe((e) => {
      if (e.type === 'repaired') repaired.push(e)
    })
    const result = await gate.run(request)
    expect(result.attempts.map((a) => [a.status, a.repaired])).toEqual([
      ['parse_error', false],
      ['success', false],
    ])
    expect(repaired).toEqual([])
  })

  it('does not repair when the config turns repair off', async () => {
    const provider = scripted(["{'message': 'hi'}", '{"message": "hi"}'])
    const result = await createGate({ providers: provider, outputSchema: Message, ...strictOutput(), repair: false }).run(request)
    expect(result.attempts.map((a) => a.status)).toEqual(['parse_error', 'success'])
  })
})
