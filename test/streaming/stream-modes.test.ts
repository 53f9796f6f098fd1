import { describe, expect, it } from 'vitest'
import {
  createGate,
  failoverRule,
  ProviderError,
  retryTransient,
  strictOutputRules,
  type GateEventMap,
  type GateStreamEvent,
  type Provider,
} from '../../src/index.ts'
import type { StreamChunk } from '../../src/model/index.ts'
import * as z from 'zod'
import { collect } from '../support/collect-stream.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'

const invalidJson = '{"orderId": "42", "action": "refund", "amount": "USD 50", "note": "never read"}'

interface StreamScript {
  readonly text: string
  /** Throw this after `after` chunks instead of finishing. */
  readonly failAfter?: { readonly after: number; readonly error: Error }
}

/** An in-process streaming provider: one script per call, 4-character chunks, records each request's signal. */
function streamer(name: string, scripts: readonly (StreamScript | Error)[]): Provider & { signals: AbortSignal[]; calls: number } {
  const signals: AbortSignal[] = []
  let calls = 0
  return {
    name,
    signals,
    get calls() {
      return calls
    },
    complete: () => Promise.reject(new Error('stream only')),
    async *stream(request): AsyncGenerator<StreamChunk> {
      const script = scripts[Math.min(calls++, scripts.length - 1)] as StreamScript | Error
      if (request.signal !== undefined) signals.push(request.signal)
      if (script instanceof Error) throw script
      let n = 0
      for (let at = 0; at < script.text.length; at += 4) {
        if (script.failAfter !== undefined && n === script.failAfter.after) throw script.failAfter.error
        n++
        yield { type: 'text', text: script.text.slice(at, at + 4) }
        await Promise.resolve()
      }
      yield { type: 'done', response: { content: script.text, toolCalls: [], usage: { inputTokens: 5, outputTokens: 5 }, stopReason: 'end' } }
    },
  }
}

describe('passthrough arbitration', () => {
  it('fails fast mid-stream-not-retryable on a transient error after the first content chunk', async () => {
    const reset = new ProviderError('socket hang up', { kind: 'network' })
    const provider = streamer('p', [{ text: validRefundJson, failAfter: { after: 2, error: reset } }, { text: validRefundJson }])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [retryTransient({ maxRetries: 3, backoff: () => 0 }), ...strictOutputRules(3)],
    })
    const stream = gate.stream(ask('x'), { mode: 'passthrough' })
    await expect(collect(stream)).rejects.toMatchObject({ kind: 'mid-stream-not-retryable', attempts: [{ errorKind: 'network' }] })
    expect(provider.calls).toBe(1)
  })

  it('fails over to the next provider when the first fails before any content', async () => {
    const primary = streamer('primary', [new ProviderError('overloaded', { kind: 'http-5xx', status: 529 })])
    const backup = streamer('backup', [{ text: validRefundJson }])
    const gate = createGate({ providers: [primary, backup], outputSchema: Refund, postDecide: [failoverRule(), ...strictOutputRules(3)] })
    const stream = gate.stream(ask('x'), { mode: 'passthrough' })
    const events = await collect(stream)
    const result = await stream.result
    expect(result.provider).toBe('backup')
    expect(events.filter((e) => e.type === 'text').every((e) => e.attempt === 2)).toBe(true)
    expect(result.value).toEqual(validRefund)
  })

  it('refuses to fail over once content was delivered', async () => {
    const primary = streamer('primary', [
      { text: validRefundJson, failAfter: { after: 1, error: new ProviderError('overloaded', { kind: 'http-5xx', status: 529 }) } },
    ])
    const backup = streamer('backup', [{ text: validRefundJson }])
    const gate = createGate({ providers: [primary, backup], outputSchema: Refund, postDecide: [failoverRule(), ...strictOutputRules(3)] })
    await expect(gate.stream(ask('x'), { mode: 'passthrough' }).result).rejects.toMatchObject({ kind: 'mid-stream-not-retryable' })
    expect(backup.calls).toBe(0)
  })
})

describe('buffer mode', () => {
  it('delivers no text while the answer is still streaming, then the whole accepted answer', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const provider: Provider = {
      name: 'held',
      complete: () => Promise.reject(new Error('stream only')),
      async *stream(): AsyncGenerator<StreamChunk> {
        yield { type: 'text', text: validRefundJson.slice(0, 10) }
        await held
        yield { type: 'text', text: validRefundJson.slice(10) }
        yield { type: 'done', response: { content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' } }
      },
    }
    const stream = createGate({ providers: provider, outputSchema: Refund }).stream(ask('x'), { mode: 'buffer' })
    const seen: string[] = []
    stream.observable.subscribe((e) => seen.push(e.type))
    for (let i = 0; i < 20; i++) await Promise.resolve()
    expect(seen).toEqual([])
    release()
    const result = await stream.result
    expect(seen.filter((t) => t === 'text').length).toBeGreaterThan(0)
    expect(seen.at(-1)).toBe('result')
    expect(result.value).toEqual(validRefund)
  })

  it('never delivers an answer that failed validation, even on the last attempt', async () => {
    const provider = streamer('p', [{ text: invalidJson }])
    const stream = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(2) }).stream(ask('x'), { mode: 'buffer' })
    const seen: GateStreamEvent<unknown>[] = []
    stream.observable.subscribe({ next: (e) => seen.push(e), error: () => undefined })
    await expect(stream.result).rejects.toMatchObject({ name: 'ReliabilityFailFastError', attempts: [{ status: 'schema_error' }, { status: 'schema_error' }] })
    expect(seen).toEqual([])
  })
})

describe('progressive mode', () => {
  it("aborts the provider's own AbortSignal at the violation", async () => {
    const provider = streamer('p', [{ text: invalidJson }, { text: validRefundJson }])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const aborted: GateEventMap['stream_aborted'][] = []
    gate.on('stream_aborted', (e) => aborted.push(e))
    await gate.stream(ask('x'), { mode: 'progressive' }).result
    expect(provider.signals[0]?.aborted).toBe(true)
    expect(provider.signals[1]?.aborted).toBe(false)
    expect(aborted.map((e) => [e.attempt, e.path])).toEqual([[1, 'amount']])
  })

  it('does not abort a valid answer that arrives one character at a time', async () => {
    const provider: Provider = {
      name: 'chars',
      complete: () => Promise.reject(new Error('stream only')),
      async *stream(): AsyncGenerator<StreamChunk> {
        for (const c of validRefundJson) yield { type: 'text', text: c }
        yield { type: 'done', response: { content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' } }
      },
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    let aborts = 0
    gate.on('stream_aborted', () => aborts++)
    const result = await gate.stream(ask('x'), { mode: 'progressive' }).result
    expect(aborts).toBe(0)
    expect(result.attempts).toHaveLength(1)
  })

  it('cut at a violation, tells the model only what it wrote wrong: never that a field it had not reached yet is missing', async () => {
    // `action` comes after the bad `amount`: the stream stopped before it, so it is not missing.
    const provider = streamer('p', [{ text: '{"orderId": "42", "amount": "USD 50", "action": "refund"}' }, { text: validRefundJson }])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const feedback: (string | undefined)[] = []
    gate.on('retry', (e) => feedback.push(e.feedback))
    const failed: string[][] = []
    gate.on('validation_failed', (e) => failed.push(e.issues.map((i) => i.path)))
    const result = await gate.stream(ask('x'), { mode: 'progressive' }).result
    expect(result.value).toEqual(validRefund)
    expect(failed).toEqual([['amount']])
    // The string as far as it was read when the stream stopped.
    expect(result.attempts[0]?.errors).toEqual([expect.stringMatching(/^amount: expected number, got "USD/)])
    expect(feedback[0]).toContain(`- 'amount': expected number, got "USD`)
    expect(feedback[0]).not.toMatch(/action/)
  })

  it('cut at a forbidden key, tells the model that key is forbidden (never that its answer was cut off)', async () => {
    for (const [text, path] of [
      ['{"orderId": "42", "__proto__": {"isAdmin": true}, "action": "refund", "amount": 50}', '__proto__'],
      ['{"orderId": "42", "action": "refund", "amount": 50, "meta": [{"__proto__": {"x": 1}}]}', 'meta[0].__proto__'],
      ['{"orderId": "42", "constructor": {"prototype": {"x": 1}}, "action": "refund", "amount": 50}', 'constructor'],
    ] as const) {
      const provider = streamer('p', [{ text }, { text: validRefundJson }])
      const gate = createGate({ providers: provider, outputSchema: { type: 'object' }, postDecide: strictOutputRules(3) })
      const aborted: string[] = []
      gate.on('stream_aborted', (e) => aborted.push(e.path))
      const result = await gate.stream(ask('x'), { mode: 'progressive' }).result
      expect(aborted, text).toEqual([path])
      expect(result.attempts[0]?.errors, text).toEqual([`${path}: forbidden key — remove it`])
      expect(result.attempts).toHaveLength(2)
    }
  })

  it('accepts in one attempt an answer that opens with a bracketed label before its JSON', async () => {
    const provider = streamer('p', [{ text: `[Answer]\n${validRefundJson}` }])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    let aborts = 0
    gate.on('stream_aborted', () => aborts++)
    const result = await gate.stream(ask('x'), { mode: 'progressive' }).result
    expect(aborts).toBe(0)
    expect(result.attempts).toHaveLength(1)
    expect(result.value).toEqual(validRefund)
  })

  it.each([
    ['a Zod schema', z.object({ orderId: z.string(), action: z.enum(['refund', 'reject']), amount: z.number() })],
    [
      'a { parse } schema',
      {
        parse: (v: unknown) => {
          if (typeof (v as { amount?: unknown }).amount !== 'number') throw new Error('amount must be a number')
          return v
        },
      },
    ],
  ])('streams the text of %s as it comes, with no partial value and no early abort, then discards and retries a failing answer', async (_name, schema) => {
    const provider = streamer('p', [{ text: invalidJson }, { text: validRefundJson }])
    const gate = createGate({ providers: provider, outputSchema: schema, postDecide: strictOutputRules(3) })
    let aborts = 0
    gate.on('stream_aborted', () => aborts++)
    const stream = gate.stream(ask('x'), { mode: 'progressive' })
    const seen: GateStreamEvent<unknown>[] = []
    stream.observable.subscribe((e) => seen.push(e))
    const result = await stream.result
    expect(aborts).toBe(0)
    expect(provider.signals[0]?.aborted).toBe(false)
    expect(seen.some((e) => e.type === 'partial')).toBe(false)
    const firstText = seen.filter((e) => e.type === 'text' && e.attempt === 1).map((e) => (e as { text: string }).text)
    expect(firstText.join('')).toBe(invalidJson)
    expect(seen.map((e) => e.type)).toContain('discarded')
    expect(result.attempts).toHaveLength(2)
    expect(result.value).toEqual(validRefund)
  })
})
