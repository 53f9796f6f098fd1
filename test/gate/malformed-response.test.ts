import { describe, expect, it } from 'vitest'
import { createGate, failoverRule, isReliabilityFailFastError, retryTransient, type GateEventMap, type Provider } from '../../src/index.ts'
import type { StreamChunk } from '../../src/model/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { hostileProxy } from '../support/hostile-values.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'

/** A provider whose first call answers `answer` as it is (no defaults filled in), then valid JSON. */
function answering(answer: unknown, name = 'odd'): Provider & { calls: number } {
  let calls = 0
  return {
    name,
    get calls() {
      return calls
    },
    complete: () => {
      calls++
      return Promise.resolve(
        (calls === 1 ? answer : { content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }) as never,
      )
    },
  }
}

const ok = { content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }

/** Answers of the wrong shape, each with the problem the failure names. */
const MALFORMED: readonly (readonly [string, unknown, string])[] = [
  ['null', null, 'expected a response object, got null'],
  ['undefined', undefined, 'no response'],
  ['an empty object', {}, 'content must be a string, got undefined'],
  ['a bare string', validRefundJson, 'expected a response object, got string'],
  ['a number', 42, 'expected a response object, got number'],
  ['numeric content', { ...ok, content: 42 }, 'content must be a string, got number'],
  ['null content', { ...ok, content: null }, 'content must be a string, got null'],
  ['toolCalls null', { ...ok, toolCalls: null }, 'toolCalls must be an array, got null'],
  ['toolCalls missing', { content: validRefundJson }, 'toolCalls must be an array, got undefined'],
  ['toolCalls holding null', { ...ok, toolCalls: [null] }, 'toolCalls[0] is not a tool call with a name'],
  ['a tool call without a name', { ...ok, toolCalls: [{ id: 'c1', args: {} }] }, 'toolCalls[0] is not a tool call with a name'],
  ['reasoning that is a string', { ...ok, reasoning: 'hmm' }, 'reasoning must be an array of reasoning blocks, got string'],
  ['a reasoning block whose text is a number', { ...ok, reasoning: [{ text: 5 }] }, 'reasoning[0].text must be a string, got number'],
  [
    'a tool call with an empty name',
    {
      ...ok,
      toolCalls: [
        { id: 'c1', name: 'lookup', args: {} },
        { id: 'c2', name: '', args: {} },
      ],
    },
    'toolCalls[1] is not a tool call with a name',
  ],
  [
    'an object whose content getter throws',
    {
      get content(): string {
        throw new Error('getter')
      },
      toolCalls: [],
    },
    'its fields cannot be read',
  ],
]

describe('provider answers of the wrong shape', () => {
  it.each(MALFORMED)('fail %s as kind malformed-response, never a TypeError', async (_name, answer, problem) => {
    const gate = createGate({ providers: answering(answer), outputSchema: Refund })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'malformed-response', phase: 'post-decide', attempts: [{ status: 'malformed_response', rawOutput: undefined }] })
    expect((error as Error).message).toContain(problem)
  })

  it.each(MALFORMED)('retry %s with retryTransient and accept the next answer', async (_name, answer) => {
    const provider = answering(answer)
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [retryTransient({ backoff: () => 0 })] })
    const result = await gate.run(ask('x'))
    expect(result.value).toEqual(validRefund)
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['malformed-response', 'ok'])
    expect(provider.calls).toBe(2)
  })

  it('fails an answer whose then throws (a hostile Proxy) as a typed unknown failure: resolving it rejects', async () => {
    const gate = createGate({ providers: answering(hostileProxy()), outputSchema: Refund })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ name: 'ReliabilityFailFastError', kind: 'unknown', reason: expect.stringContaining('trap') })
  })

  it('fails over on a malformed answer with failoverRule', async () => {
    const backup = scripted([validRefundJson], { name: 'backup' })
    const gate = createGate({ providers: [answering(null, 'primary'), backup], outputSchema: Refund, postDecide: [failoverRule()] })
    const result = await gate.run(ask('x'))
    expect(result.provider).toBe('backup')
    expect(result.attempts.map((a) => [a.provider, a.errorKind])).toEqual([
      ['primary', 'malformed-response'],
      ['backup', 'ok'],
    ])
  })

  it('reports the attempt as malformed on attempt_end before any decision', async () => {
    const gate = createGate({ providers: answering({}) })
    const ends: GateEventMap['attempt_end'][] = []
    gate.on('attempt_end', (e) => ends.push(e))
    await gate.run(ask('x')).catch(() => undefined)
    expect(ends.map((e) => e.errorKind)).toEqual(['malformed-response'])
  })
})

/** A streaming provider that yields `chunks` as they are, then ends. */
function streaming(chunks: readonly unknown[], onStream?: () => unknown): Provider {
  return {
    name: 'streamer',
    complete: () => Promise.reject(new Error('stream only')),
    stream:
      (onStream as Provider['stream']) ??
      async function* () {
        for (const c of chunks) yield c as StreamChunk
      },
  }
}

const done = (response: unknown): unknown => ({ type: 'done', response })

/** Streams of the wrong shape, each with the problem the failure names. */
const MALFORMED_STREAMS: readonly (readonly [string, Provider, string])[] = [
  ['a done chunk whose response is null', streaming([{ type: 'text', text: '{' }, done(null)]), 'expected a response object, got null'],
  ['a done chunk without response', streaming([{ type: 'done' }]), 'no response'],
  ['a done chunk with numeric content', streaming([done({ ...ok, content: 7 })]), 'content must be a string, got number'],
  ['a done chunk with toolCalls null', streaming([done({ ...ok, toolCalls: null })]), 'toolCalls must be an array, got null'],
  ['a null chunk', streaming([null]), 'a chunk is null, not an object'],
  ['a bare string chunk', streaming(['text']), 'a chunk is string, not an object'],
  ['a chunk of an unknown type', streaming([{ type: 'delta', text: 'x' }]), 'a chunk has the unknown type "delta"'],
  ['a text chunk with numeric text', streaming([{ type: 'text', text: 5 }]), 'a text chunk has no string text'],
  ['a stream() that returns null', streaming([], () => null), 'stream() returned null, not an AsyncIterable'],
  [
    'an iterator that answers null',
    streaming([], () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(null) }) })),
    'its iterator answered null',
  ],
]

describe('streamed answers of the wrong shape', () => {
  it.each(MALFORMED_STREAMS)('fail %s as kind malformed-response', async (_name, provider, problem) => {
    const gate = createGate({ providers: provider, outputSchema: Refund })
    const error = await gate.stream(ask('x'), { mode: 'buffer' }).result.catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'malformed-response', phase: 'post-decide', attempts: [{ status: 'malformed_response' }] })
    expect((error as Error).message).toContain(problem)
  })
})

describe('fallback answers of the wrong shape', () => {
  const toFallback = { when: () => true, then: 'fallback' as const, kind: 'use-fallback', failuresOnly: true }

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['an object of another shape', { text: validRefundJson }],
    ['a response with toolCalls null', { ...ok, toolCalls: null }],
  ])('fail a fallback answering %s as fallback-invalid, never a TypeError', async (_name, answer) => {
    const gate = createGate({ providers: scripted(['not json']), outputSchema: Refund, postDecide: [toFallback], fallback: () => answer as never })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({
      kind: 'fallback-invalid',
      phase: 'post-decide',
      reason: expect.stringContaining('the fallback answered neither a string nor a ModelResponse'),
    })
  })

  it('fails a fallback answering a hostile Proxy as fallback-failed: resolving it rejects', async () => {
    const gate = createGate({ providers: scripted(['not json']), outputSchema: Refund, postDecide: [toFallback], fallback: () => hostileProxy() as never })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'fallback-failed', reason: 'reliability-post-decide: the fallback threw: trap' })
  })

  it('reports the recovery of a fallback answer, counting every failed attempt before it', async () => {
    const gate = createGate({ providers: scripted(['not json']), outputSchema: Refund, postDecide: [toFallback], fallback: () => validRefundJson })
    const recovered: number[] = []
    gate.on('recovered', (e) => recovered.push(e.failedAttempts))
    await gate.run(ask('x'))
    expect(recovered).toEqual([1])
  })

  it('still accepts a fallback that answers a valid ModelResponse', async () => {
    const gate = createGate({ providers: scripted(['not json']), outputSchema: Refund, postDecide: [toFallback], fallback: () => ok as never })
    const result = await gate.run(ask('x'))
    expect(result).toMatchObject({ fromFallback: true, value: validRefund })
  })
})
