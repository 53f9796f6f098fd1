import { firstValueFrom, toArray } from 'rxjs'
import { describe, expect, it } from 'vitest'
import {
  createGate,
  isReliabilityFailFastError,
  ProviderError,
  strictOutputRules,
  type GateEvent,
  type GateStreamEvent,
  type Provider,
} from '../../src/index.ts'
import type { StreamChunk } from '../../src/model/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { collect } from '../support/collect-stream.ts'

const invalidJson = '{"orderId": "42", "action": "refund", "amount": "USD 50", "note": "this part is never read"}'

const textOf = (events: readonly GateStreamEvent<unknown>[], attempt?: number) =>
  events
    .filter((e): e is Extract<GateStreamEvent<unknown>, { type: 'text' }> => e.type === 'text' && (attempt === undefined || e.attempt === attempt))
    .map((e) => e.text)
    .join('')

/** A provider that streams `texts[i]` for call i in chunks of `size`, counting the chunks it produced. */
function chunked(texts: readonly string[], size = 4): Provider & { produced: number[]; requests: number } {
  const produced: number[] = []
  let calls = 0
  return {
    name: 'chunked',
    produced,
    get requests() {
      return calls
    },
    complete: () => Promise.reject(new Error('stream only')),
    async *stream(request): AsyncGenerator<StreamChunk> {
      const i = calls++
      const text = texts[Math.min(i, texts.length - 1)] ?? ''
      produced[i] = 0
      for (let at = 0; at < text.length; at += size) {
        if (request.signal?.aborted === true) throw request.signal.reason
        produced[i]++
        yield { type: 'text', text: text.slice(at, at + size) }
        await Promise.resolve()
      }
      yield {
        type: 'done',
        response: { content: text, toolCalls: [], usage: { inputTokens: 10, outputTokens: Math.ceil(text.length / 4) }, stopReason: 'end' },
      }
    },
  }
}

/** A provider whose stream delivers the start of an answer, then never another chunk. */
function stuckMidStream(): Provider {
  return {
    name: 'stuck',
    complete: () => Promise.reject(new Error('unused')),
    async *stream(): AsyncGenerator<StreamChunk> {
      yield { type: 'text', text: '{"orderId": ' }
      await new Promise(() => undefined)
    },
  }
}

describe('gate.stream', () => {
  it('passes chunks through as they come and resolves the result', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const stream = gate.stream(ask('x'))
    const events = await collect(stream)
    expect(textOf(events)).toBe(validRefundJson)
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1)
    expect(events.at(-1)).toMatchObject({ type: 'result', attempt: 1 })
    expect((await stream.result).value).toEqual(validRefund)
  })

  it('in passthrough, fails fast mid-stream-not-retryable once content was delivered', async () => {
    const gate = createGate({ providers: scripted([invalidJson, validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const stream = gate.stream(ask('x'), { mode: 'passthrough' })
    const error = await collect(stream).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'mid-stream-not-retryable' })
    await expect(stream.result).rejects.toMatchObject({ kind: 'mid-stream-not-retryable' })
  })

  it('in passthrough, retries an error that happens before the first content chunk', async () => {
    const provider = scripted([new Error('socket hang up'), validRefundJson])
    const { retryTransient } = await import('../../src/rules/index.ts')
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [retryTransient({ maxRetries: 2, backoff: () => 0 }), ...strictOutputRules(3)],
    })
    const events = await collect(gate.stream(ask('x'), { mode: 'passthrough' }))
    expect(textOf(events)).toBe(validRefundJson)
    expect(new Set(events.filter((e) => e.type === 'text').map((e) => e.attempt))).toEqual(new Set([2]))
    expect(provider.calls).toBe(2)
  })

  it('in buffer mode, delivers only the accepted attempt and shows retries through events only', async () => {
    const gate = createGate({ providers: scripted([invalidJson, validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const seen: GateEvent['type'][] = []
    gate.events$.subscribe((e) => seen.push(e.type))
    const stream = gate.stream(ask('x'), { mode: 'buffer' })
    const events = await collect(stream)
    expect(events.filter((e) => e.type === 'text').every((e) => e.attempt === 2)).toBe(true)
    expect(textOf(events)).toBe(validRefundJson)
    expect(events.map((e) => e.type)).not.toContain('partial')
    expect(seen).toContain('validation_failed')
    expect(seen).toContain('retry')
  })

  it('in progressive mode, aborts on a definite violation, emits stream_aborted and retries with feedback', async () => {
    const provider = chunked([invalidJson, validRefundJson], 4)
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const aborted: unknown[] = []
    gate.on('stream_aborted', (e) => aborted.push(e))
    const feedback: (string | undefined)[] = []
    gate.on('retry', (e) => feedback.push(e.feedback))
    const stream = gate.stream(ask('x'), { mode: 'progressive' })
    const events = await collect(stream)
    const result = await stream.result

    const cut = invalidJson.indexOf('"USD') + 4 - ((invalidJson.indexOf('"USD') + 4) % 4 === 0 ? 0 : (invalidJson.indexOf('"USD') + 4) % 4) + 4
    expect(aborted).toEqual([
      {
        runId: result.runId,
        attempt: 1,
        path: 'amount',
        reason: expect.stringContaining('amount: expected number, got string'),
        consumedChars: expect.any(Number),
        consumedShare: undefined,
      },
    ])
    const consumed = (aborted[0] as { consumedChars: number }).consumedChars
    expect(consumed).toBeLessThan(invalidJson.indexOf('"note"'))
    expect(consumed).toBeLessThanOrEqual(cut)
    // The provider stopped producing: far fewer chunks than the invalid answer has.
    expect(provider.produced[0]).toBeLessThan(Math.ceil(invalidJson.length / 4))
    expect(feedback[0]).toMatch(/- 'amount': expected number, got "U/)
    expect(events.filter((e) => e.type === 'discarded')).toEqual([{ type: 'discarded', attempt: 1 }])
    const partials = events.filter((e) => e.type === 'partial')
    expect(partials.at(-1)).toEqual({ type: 'partial', value: validRefund, attempt: 2 })
    expect(partials.some((p) => p.attempt === 1)).toBe(true)
    // Chunks are scoped per attempt: attempt 2's text is exactly its own answer.
    expect(textOf(events, 2)).toBe(validRefundJson)
    expect(textOf(events, 1)).toBe(invalidJson.slice(0, consumed))
    expect(result.value).toEqual(validRefund)
    // The raw text did not name the violation once repaired, so the partial value stands in for it.
    expect(result.attempts[0]?.rawOutput).toBe(
      JSON.stringify({ orderId: '42', action: 'refund', amount: invalidJson.slice(invalidJson.indexOf('"USD') + 1, consumed) }),
    )
    // Usage of the aborted attempt is counted (estimated from characters: none was reported).
    expect(result.attempts[0]?.usage.outputTokens).toBe(Math.ceil(consumed / 4))
    expect(result.usage.outputTokens).toBe(Math.ceil(consumed / 4) + Math.ceil(validRefundJson.length / 4))
  })

  it('in progressive mode, names an unknown key in the feedback even before its value arrives', async () => {
    const provider = chunked(['{"orderId": "42", "extra": {"deep": [1, 2, 3]}, "action": "refund", "amount": 1}', validRefundJson], 1)
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const feedback: (string | undefined)[] = []
    gate.on('retry', (e) => feedback.push(e.feedback))
    const result = await gate.stream(ask('x'), { mode: 'progressive' }).result
    expect(feedback[0]).toContain(`- 'extra': unknown field — remove it`)
    expect(result.value).toEqual(validRefund)
  })

  it('emits the same events to the observable as to the iterator', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund })
    const stream = gate.stream(ask('x'), { mode: 'progressive' })
    const fromObservable = await firstValueFrom(stream.observable.pipe(toArray()))
    const fromIterator = await collect(stream)
    expect(fromObservable).toEqual(fromIterator)
    expect(fromObservable.filter((e) => e.type === 'partial').at(-1)).toMatchObject({ value: validRefund })
  })

  it('falls back to complete() for a provider that cannot stream', async () => {
    const provider: Provider = {
      name: 'plain',
      complete: async () => ({ content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }),
    }
    const events = await collect(createGate({ providers: provider, outputSchema: Refund }).stream(ask('x'), { mode: 'progressive' }))
    expect(textOf(events)).toBe(validRefundJson)
    expect(events.at(-1)?.type).toBe('result')
  })

  it.each(['passthrough', 'buffer', 'progressive'] as const)(
    "delivers the fallback's answer, which never streamed, as text before the result in %s mode",
    async (mode) => {
      const canned = JSON.stringify({ orderId: '0', action: 'reject', amount: 0 })
      const gate = createGate({
        providers: scripted([new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })]),
        outputSchema: Refund,
        fallback: () => ({ content: canned, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' }),
        postDecide: [{ when: (s) => s.errorKind === 'http-5xx', then: 'fallback', kind: 'answer-canned' }],
      })
      const stream = gate.stream(ask('x'), { mode })
      const events = await collect(stream)
      const result = await stream.result
      expect(result.fromFallback).toBe(true)
      expect(events.map((e) => e.type)).toEqual(['text', 'result'])
      expect(textOf(events)).toBe(result.response.content)
    },
  )

  it.each(['passthrough', 'buffer', 'progressive'] as const)(
    'delivers the text of a stream that sent its whole answer in its done chunk in %s mode',
    async (mode) => {
      const doneOnly: Provider = {
        name: 'done-only',
        complete: () => Promise.reject(new Error('stream only')),
        async *stream(): AsyncGenerator<StreamChunk> {
          yield { type: 'done', response: { content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' } }
        },
      }
      const stream = createGate({ providers: doneOnly, outputSchema: Refund }).stream(ask('x'), { mode })
      const events = await collect(stream)
      expect(textOf(events)).toBe(validRefundJson)
      expect((await stream.result).value).toEqual(validRefund)
    },
  )

  it('discards a progressive attempt before the fallback that replaces it answers', async () => {
    const canned = JSON.stringify({ orderId: '0', action: 'reject', amount: 0 })
    const gate = createGate({
      providers: chunked([invalidJson]),
      outputSchema: Refund,
      fallback: () => ({ content: canned, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' }),
      postDecide: [{ when: (s) => s.errorKind === 'schema-fail', then: 'fallback', kind: 'answer-canned' }],
    })
    const events = await collect(gate.stream(ask('x'), { mode: 'progressive' }))
    const discarded = events.findIndex((e) => e.type === 'discarded')
    expect(events[discarded]).toEqual({ type: 'discarded', attempt: 1 })
    expect(events.slice(discarded + 1).map((e) => (e.type === 'text' ? e.text : e.type))).toEqual([canned, 'result'])
  })

  it('aborts the run with the caller signal while a provider is stuck mid-stream', async () => {
    const stuck = stuckMidStream()
    const controller = new AbortController()
    const stream = createGate({ providers: stuck, outputSchema: Refund }).stream(ask('x'), { mode: 'buffer', signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    await expect(stream.result).rejects.toMatchObject({ kind: 'aborted' })
  })

  it('ends aborted, not mid-stream-not-retryable, when the caller aborts a passthrough stream after content was delivered', async () => {
    const stuck = stuckMidStream()
    const controller = new AbortController()
    const stream = createGate({ providers: stuck, outputSchema: Refund, postDecide: strictOutputRules(3) }).stream(ask('x'), {
      mode: 'passthrough',
      signal: controller.signal,
    })
    const error = await (async () => {
      for await (const event of stream) if (event.type === 'text') controller.abort()
    })().catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'aborted' })
    await expect(stream.result).rejects.toMatchObject({ kind: 'aborted' })
  })

  it('times out a stream that stops producing', async () => {
    const stream = createGate({ providers: stuckMidStream(), outputSchema: Refund, timeoutMs: 20 }).stream(ask('x'), { mode: 'buffer' })
    await expect(stream.result).rejects.toMatchObject({ kind: 'timeout' })
  })
})
