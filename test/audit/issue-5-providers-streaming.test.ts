import Anthropic from '@anthropic-ai/sdk'
import { streamText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import OpenAI from 'openai'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  Agent,
  createGate,
  failoverRule,
  ProviderError,
  retryTransient,
  strictOutputRules,
  tool,
  type GateEventMap,
  type GateStreamEvent,
  type Provider,
} from '../../src/index.ts'
import type { StreamChunk } from '../../src/model/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk-middleware/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { anthropicMessage, anthropicSse, anthropicText } from '../adapters/support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer } from '../adapters/support/loopback-server.ts'
import { openaiText, openaiToolCalls } from '../adapters/support/openai-wire.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { collect } from '../support/collect-stream.ts'
import { streamed } from '../adapters/support/ai-sdk-mock.ts'

const invalidJson = '{"orderId": "42", "action": "refund", "amount": "USD 50", "note": "never read"}'
const Lookup = Type.Object({ orderId: Type.String() }, { additionalProperties: false })

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

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
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [retryTransient({ maxRetries: 3, backoff: () => 0 }), ...strictOutputRules(3)] })
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
    const primary = streamer('primary', [{ text: validRefundJson, failAfter: { after: 1, error: new ProviderError('overloaded', { kind: 'http-5xx', status: 529 }) } }])
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

  it('keeps the input and cache tokens Anthropic reported before the abort', async () => {
    const invalid = `{"orderId": "42", "amount": "USD 50", "action": "refund", "reason": "${'x'.repeat(300)}"}`
    server.script([anthropicSse(invalid, { frameDelayMs: 2 }), anthropicSse(validRefundJson)])
    server.requests.length = 0
    const provider = anthropic({ client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }), model: 'claude-test' })
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = await gate.stream(ask('refund #42'), { mode: 'progressive' }).result
    const first = result.attempts[0]
    expect(first?.errorKind).toBe('schema-fail')
    expect(first?.usage).toMatchObject({ inputTokens: 40, cacheReadTokens: 30 })
    expect(first?.usage.outputTokens).toBeGreaterThan(0)
    expect(result.usage.inputTokens).toBe(80)
  })
})

describe('adapters and tool arguments', () => {
  it('turns unparseable OpenAI tool arguments into an argument retry with feedback, not a crash', async () => {
    server.script([
      openaiToolCalls([{ id: 'call_1', name: 'lookup', arguments: '{"orderId": "42",' }]),
      openaiToolCalls([{ id: 'call_2', name: 'lookup', arguments: '{"orderId": "42"}' }]),
      openaiText('done'),
    ])
    server.requests.length = 0
    const seen: unknown[] = []
    const lookup = tool({ name: 'lookup', description: 'find an order', input: Lookup, execute: async (args) => seen.push(args) })
    const agent = Agent.create({ provider: openai({ client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0 }) }), model: 'gpt-test' }).tool(lookup).build()
    const stages: string[] = []
    agent.on('validation_failed', (e) => stages.push(e.stage))
    const result = await agent.runDetailed('look up order 42')

    expect(result.text).toBe('done')
    expect(stages).toEqual(['tool-args'])
    expect(seen).toEqual([{ orderId: '42' }])
    expect(result.functionsCalled).toEqual([expect.objectContaining({ name: 'lookup', args: { orderId: '42' }, retryCount: 1, outcome: 'success' })])
    const retry = server.requests[1]?.body
    expect(retry.messages.at(-2).tool_calls[0].function.arguments).toBe('{"orderId": "42",')
    expect(retry.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
    expect(retry.messages.at(-1).content).toContain('not valid JSON')
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toMatch(/ephemeral|isError|toolName/)
  })

  it('keeps the Anthropic cache breakpoint on the last base block through a tool-argument retry', async () => {
    server.script([
      anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { orderId: 42 } }], 'tool_use'),
      anthropicMessage([{ type: 'tool_use', id: 'toolu_2', name: 'lookup', input: { orderId: '42' } }], 'tool_use'),
      anthropicText('done'),
    ])
    server.requests.length = 0
    const lookup = tool({ name: 'lookup', description: 'find an order', input: Lookup, execute: async () => 'found' })
    const agent = Agent.create({ provider: anthropic({ client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }) }), model: 'claude-test' }).tool(lookup).build()
    await agent.run('look up order 42')
    const marks = server.requests.map((r) =>
      r.body.messages.flatMap((m: any, i: number) => m.content.flatMap((b: any, j: number) => (b.cache_control !== undefined ? [`${i}.${j}:${b.type}`] : []))),
    )
    // Request 2 is the retry: base [user] + tail [assistant tool_use, user tool_result is_error]; the tail is never cached.
    expect(marks).toEqual([['0.0:text'], ['0.0:text'], ['2.0:tool_result']])
    expect(server.requests[1]?.body.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true })
    // The committed turn holds the one logical call with its final arguments, answered by its result.
    expect(server.requests[2]?.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { orderId: '42' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('found'), cache_control: { type: 'ephemeral' } }] },
    ])
  })
})

describe('reliabilityMiddleware in streamText', () => {
  it('in passthrough, surfaces mid-stream-not-retryable instead of retrying delivered text', async () => {
    const mock = new MockLanguageModelV4({ doStream: [streamed(invalidJson), streamed(validRefundJson)] })
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3), streamMode: 'passthrough' })
    const errors: unknown[] = []
    const result = streamText({ model: wrapLanguageModel({ model: mock, middleware }), prompt: 'refund #42', onError: ({ error }) => void errors.push(error) })
    let text = ''
    for await (const delta of result.textStream) text += delta
    expect(text).toBe(invalidJson)
    expect(errors).toEqual([expect.objectContaining({ kind: 'mid-stream-not-retryable' })])
    expect(mock.doStreamCalls).toHaveLength(1)
  })

  it('appends the feedback to the original prompt of the second stream call, without the ephemeral flag', async () => {
    const mock = new MockLanguageModelV4({ doStream: [streamed(invalidJson), streamed(validRefundJson)] })
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = streamText({ model: wrapLanguageModel({ model: mock, middleware }), system: 'Output JSON.', prompt: 'refund #42' })
    await result.consumeStream()
    const [first, second] = mock.doStreamCalls
    expect(second?.prompt.slice(0, first?.prompt.length)).toEqual(first?.prompt)
    expect(second?.prompt.slice(first?.prompt.length ?? 0).map((m) => m.role)).toEqual(['assistant', 'user'])
    expect(JSON.stringify(second?.prompt)).toContain(`- 'amount': expected number, got \\"USD 50\\"`)
    expect(JSON.stringify(second?.prompt)).not.toContain('ephemeral')
  })
})
