import { describe, expect, it } from 'vitest'
import { createGate } from '../../src/index.ts'
import type { Message } from '../../src/model/message.ts'
import type { ModelRequest } from '../../src/model/request.ts'
import type { StreamChunk } from '../../src/model/stream-chunk.ts'
import { scripted } from '../../src/providers/index.ts'

const ask = (content: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({ messages: [{ role: 'user', content }], ...extra })

describe('scripted', () => {
  it('replies with its steps in order', async () => {
    const provider = scripted(['first', 'second'])
    expect((await provider.complete(ask('a'))).content).toBe('first')
    expect((await provider.complete(ask('b'))).content).toBe('second')
    expect(provider.calls).toBe(2)
  })

  it('turns a string step into a final answer with approximate usage', async () => {
    const response = await scripted(['12345678']).complete({ system: 'abcd', messages: [{ role: 'user', content: 'efghijkl' }] })
    expect(response).toEqual({ content: '12345678', toolCalls: [], usage: { inputTokens: 3, outputTokens: 2 }, stopReason: 'end' })
  })

  it('counts at least one output token for an empty answer', async () => {
    expect((await scripted(['']).complete(ask('x'))).usage.outputTokens).toBe(1)
  })

  it('completes a partial response with defaults', async () => {
    const response = await scripted([{ content: 'x' }]).complete(ask('q'))
    expect(response.toolCalls).toEqual([])
    expect(response.stopReason).toBe('end')
    expect(response.usage.inputTokens).toBe(1)
  })

  it('defaults the stop reason to tool_use when the step has tool calls', async () => {
    const response = await scripted([{ toolCalls: [{ id: 'c1', name: 'lookup', args: { id: 1 } }] }]).complete(ask('q'))
    expect(response.stopReason).toBe('tool_use')
    expect(response.content).toBe('')
  })

  it('keeps the fields a partial response sets', async () => {
    const usage = { inputTokens: 100, outputTokens: 7 }
    const response = await scripted([{ content: '{"a":', stopReason: 'max_tokens', usage }]).complete(ask('q'))
    expect(response.stopReason).toBe('max_tokens')
    expect(response.usage).toBe(usage)
  })

  it('throws an Error step', async () => {
    const boom = new Error('503 upstream')
    const provider = scripted([boom, 'ok'])
    await expect(provider.complete(ask('q'))).rejects.toBe(boom)
    expect((await provider.complete(ask('q'))).content).toBe('ok')
  })

  it('interprets what a function step returns, with the request and the call index', async () => {
    const seen: number[] = []
    const provider = scripted([
      'zero',
      async (request, index) => {
        seen.push(index)
        return `echo ${request.messages[0]?.content}`
      },
      () => new Error('from function'),
    ])
    await provider.complete(ask('a'))
    expect((await provider.complete(ask('hello'))).content).toBe('echo hello')
    await expect(provider.complete(ask('c'))).rejects.toThrow('from function')
    expect(seen).toEqual([1])
  })

  it('propagates what a function step throws', async () => {
    const provider = scripted([
      () => {
        throw new TypeError('bad step')
      },
    ])
    await expect(provider.complete(ask('q'))).rejects.toThrow(TypeError)
  })

  it('records snapshots that later mutation cannot change', async () => {
    const provider = scripted(['ok'])
    const messages: Message[] = [{ role: 'user', content: 'original' }]
    const request = { messages, model: 'm1' }
    await provider.complete(request)
    messages.push({ role: 'assistant', content: 'added later' })
    messages[0] = { role: 'user', content: 'replaced' }
    request.model = 'm2'
    expect(provider.requests).toHaveLength(1)
    expect(provider.requests[0]?.messages).toEqual([{ role: 'user', content: 'original' }])
    expect(provider.requests[0]?.model).toBe('m1')
  })

  it('throws a descriptive error when the steps run out', async () => {
    const provider = scripted(['only'], { name: 'billing' })
    await provider.complete(ask('q'))
    await expect(provider.complete(ask('q'))).rejects.toThrow('scripted provider "billing" has no step for call #2 (1 steps scripted)')
  })

  it('is named scripted by default', () => {
    expect(scripted([]).name).toBe('scripted')
  })

  it('rejects with the reason of an already aborted signal', async () => {
    const controller = new AbortController()
    const reason = new Error('caller gave up')
    controller.abort(reason)
    const provider = scripted(['never'])
    await expect(provider.complete(ask('q', { signal: controller.signal }))).rejects.toBe(reason)
    expect(provider.calls).toBe(1)
  })

  it('rejects with an AbortError when the signal was aborted without a reason', async () => {
    await expect(scripted(['never']).complete(ask('q', { signal: AbortSignal.abort() }))).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('rejects a call aborted while its function step never settles, with the signal reason, from complete and from stream', async () => {
    const reason = new Error('caller gave up')
    const pending = () => new Promise<never>(() => undefined)
    const controller = new AbortController()
    const call = scripted([pending]).complete(ask('q', { signal: controller.signal }))
    controller.abort(reason)
    await expect(call).rejects.toBe(reason)
    const streamed = new AbortController()
    const next = scripted([pending])
      .stream(ask('q', { signal: streamed.signal }))
      [Symbol.asyncIterator]()
      .next()
    streamed.abort()
    await expect(next).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('answers what a step scripts even when its tool calls hold null or arguments JSON cannot write, never throwing from its own usage estimate', async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic['self'] = cyclic
    const steps = [
      { toolCalls: [null] },
      { toolCalls: [{ id: 'c1', name: 'lookup', args: { total: 10n } }] },
      { toolCalls: [{ id: 'c2', name: 'lookup', args: cyclic }] },
    ]
    const provider = scripted(steps as never)
    for (const step of steps) {
      const response = await provider.complete(ask('q'))
      expect(response.toolCalls).toBe(step.toolCalls)
      expect(response.usage.outputTokens).toBeGreaterThanOrEqual(1)
    }
  })

  it('lets the gate judge a scripted answer whose tool calls hold null: kind malformed-response, as from any provider', async () => {
    const gate = createGate({ providers: scripted([{ toolCalls: [null] } as never]) })
    await expect(gate.run(ask('q'))).rejects.toMatchObject({ kind: 'malformed-response', attempts: [{ status: 'malformed_response' }] })
  })

  it('streams the content in chunks and ends with the full response', async () => {
    const chunks: StreamChunk[] = []
    for await (const chunk of scripted(['{"answer": 42, "ok": true}']).stream(ask('q'))) chunks.push(chunk)
    const texts = chunks.flatMap((c) => (c.type === 'text' ? [c.text] : []))
    expect(texts.length).toBeGreaterThan(1)
    expect(texts.join('')).toBe('{"answer": 42, "ok": true}')
    expect(chunks.at(-1)).toMatchObject({ type: 'done', response: { content: '{"answer": 42, "ok": true}' } })
  })
})

describe('scripted steps', () => {
  it.each([
    [42, /scripted: step #2 must be a string, a response object, an Error or a function, got number/],
    [null, /step #2 must be .*got null/],
    [['a'], /step #2 must be .*got an array/],
    [{ content: 7 }, /step #2 content must be a string/],
    [{ toolCalls: 'zz' }, /step #2 toolCalls must be an array/],
  ])('refuses step %j when the provider is made', (step, message) => {
    expect(() => scripted(['ok', step as never])).toThrow(TypeError)
    expect(() => scripted(['ok', step as never])).toThrow(message)
  })

  it('refuses, at the call, what a function step returns when it is no step', async () => {
    const provider = scripted([() => 42 as never])
    await expect(provider.complete({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(
      /scripted: step #1 \(a function\) returned a value that must be/,
    )
  })

  it('keeps the reasoning of a response step', async () => {
    const reasoning = [{ type: 'thinking' as const, text: 'hmm', signature: 's' }]
    const response = await scripted([{ content: 'x', reasoning } as never]).complete({ messages: [{ role: 'user', content: 'hi' }] })
    expect(response.reasoning).toEqual(reasoning)
  })
})
