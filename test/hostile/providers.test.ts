import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, isReliabilityFailFastError, ProviderError, retryTransient, type Provider } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { THROWN_VALUES } from '../support/hostile-values.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { observeRun } from './support.ts'

const rejecting = (value: unknown): Provider => ({ name: 'p', complete: () => Promise.reject(value) })
const answering = (value: unknown): Provider => ({ name: 'p', complete: () => Promise.resolve(value as never) })
const agentOn = (provider: Provider) => Agent.create({ provider }).outputSchema(Refund).build()
const ok = { content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }

afterEach(() => {
  vi.useRealTimers()
})

describe('hostile providers: anything thrown', () => {
  it.each(THROWN_VALUES)('fail a provider that rejects with %s as kind unknown, history untouched', async (_name, make) => {
    const seen = await observeRun(agentOn(rejecting(make())), 'go')
    expect(isReliabilityFailFastError(seen.error)).toBe(true)
    expect(seen.error).toMatchObject({ kind: 'unknown', phase: 'post-decide', attempts: [{ status: 'error' }] })
    expect(seen.events.attempt_end.map((e) => e.errorKind)).toEqual(['unknown'])
    expect(seen.events.fail_fast.map((e) => e.kind)).toEqual(['unknown'])
    expect(seen.history).toEqual([])
  })
})

describe('hostile providers: transport failures', () => {
  const headers = (h: Record<string, string>) => ({ get: (k: string) => h[k] ?? null })
  it.each([
    ['a 429 with retry-after seconds', Object.assign(new Error('slow down'), { status: 429, headers: headers({ 'retry-after': '2' }) }), 'rate-limit', 2000],
    ['a 429 with retry-after-ms', Object.assign(new Error('slow down'), { status: 429, headers: headers({ 'retry-after-ms': '150' }) }), 'rate-limit', 150],
    [
      'a 429 with a negative retry-after (read as now)',
      Object.assign(new Error('slow down'), { status: 429, headers: headers({ 'retry-after': '-3' }) }),
      'rate-limit',
      0,
    ],
    ['a 500', Object.assign(new Error('boom'), { status: 500 }), 'http-5xx', undefined],
    ['a 529 overloaded', Object.assign(new Error('overloaded'), { status: 529 }), 'http-5xx', undefined],
    ['a 408', Object.assign(new Error('request timeout'), { status: 408 }), 'timeout', undefined],
    ['a connection reset', Object.assign(new Error('socket'), { code: 'ECONNRESET' }), 'network', undefined],
    ['a fetch TimeoutError', new DOMException('timed out', 'TimeoutError'), 'timeout', undefined],
    ['a status that is NaN', Object.assign(new Error('weird'), { status: Number.NaN }), 'unknown', undefined],
    ['a ProviderError of kind refusal', new ProviderError('I cannot help with that', { kind: 'refusal' }), 'refusal', undefined],
  ])('fail %s with its kind and the retry-after rules see', async (_name, error, kind, retryAfterMs) => {
    const seenByRules: (number | undefined)[] = []
    const spy = { when: (s: { retryAfterMs?: number | undefined }) => (seenByRules.push(s.retryAfterMs), false), then: 'retry' as const, kind: 'spy' }
    const agent = Agent.create({ provider: rejecting(error) })
      .outputSchema(Refund)
      .reliability({ postDecide: [spy] })
      .build()
    const seen = await observeRun(agent, 'go')
    expect(seen.error).toMatchObject({ kind, phase: 'post-decide' })
    expect((seen.error as { attempts: { error: unknown }[] }).attempts[0]?.error).toBe(error)
    expect(seenByRules).toEqual([retryAfterMs])
    expect(seen.history).toEqual([])
  })

  it('waits out a 429 retry-after with retryTransient and recovers', async () => {
    vi.useFakeTimers()
    const limited = new ProviderError('slow down', { kind: 'rate-limit', retryAfterMs: 30_000 })
    const provider = scripted([limited, validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: [retryTransient()] })
      .build()
    const run = agent.runTyped('go')
    await vi.advanceTimersByTimeAsync(29_999)
    expect(provider.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    await expect(run).resolves.toEqual(validRefund)
  })
})

describe('hostile providers: answers of the wrong shape', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an empty object', {}],
    ['a bare string', validRefundJson],
    ['a number', 7],
    ['an array', [ok]],
    ['numeric content', { ...ok, content: 1 }],
    ['toolCalls null', { ...ok, toolCalls: null }],
    ['toolCalls holding null', { ...ok, toolCalls: [null] }],
    ['toolCalls holding a string', { ...ok, toolCalls: ['lookup'] }],
  ])('fail an answer that is %s as kind malformed-response, history untouched', async (_name, answer) => {
    const seen = await observeRun(agentOn(answering(answer)), 'go')
    expect(seen.error).toMatchObject({ kind: 'malformed-response', phase: 'post-decide', attempts: [{ status: 'malformed_response' }] })
    expect(seen.events.validation_failed).toEqual([])
    expect(seen.history).toEqual([])
  })

  it('counts a usage of the wrong shape as estimated, never NaN', async () => {
    const seen = await observeRun(agentOn(answering({ ...ok, usage: 'lots' })), 'go')
    expect(seen.value).toEqual(validRefund)
    expect(seen.events.attempt_end[0]?.usage).toMatchObject({ estimated: true })
    expect(Number.isNaN(seen.events.attempt_end[0]?.usage.inputTokens)).toBe(false)
  })
})

describe('hostile providers: hangs', () => {
  const hung: Provider = { name: 'p', complete: () => new Promise(() => {}) }

  it('settle a provider that never answers with kind aborted once the run is aborted', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 5)
    const seen = await observeRun(agentOn(hung), 'go', controller.signal)
    expect(seen.error).toMatchObject({ kind: 'aborted', attempts: [{ status: 'aborted' }] })
    expect(seen.history).toEqual([])
  })

  it('settle a provider that never answers with kind timeout after timeoutMs', async () => {
    vi.useFakeTimers()
    const agent = Agent.create({ provider: hung }).outputSchema(Refund).reliability({ timeoutMs: 1_000 }).build()
    const run = agent.runTyped('go')
    run.catch(() => undefined)
    await vi.advanceTimersByTimeAsync(1_000)
    await expect(run).rejects.toMatchObject({ kind: 'timeout', attempts: [{ status: 'timeout' }] })
  })

  it('fail a run whose signal is already aborted before any provider call', async () => {
    const provider = scripted([validRefundJson])
    const seen = await observeRun(agentOn(provider), 'go', AbortSignal.abort())
    expect(seen.error).toMatchObject({ kind: 'aborted', phase: 'pre-check' })
    expect(provider.calls).toBe(0)
  })
})
