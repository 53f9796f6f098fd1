import { describe, expect, it } from 'vitest'
import { classifyError } from '../../src/gate/classify-error.ts'
import { isProviderError, ProviderError } from '../../src/model/provider-error.ts'
import type { ModelRequest } from '../../src/model/request.ts'
import type { StreamChunk } from '../../src/model/stream-chunk.ts'
import { callSdk, requestModel, signalOption, streamSdk } from '../../src/providers/adapter-kit/sdk-call.ts'

const request: ModelRequest = { messages: [{ role: 'user', content: 'q' }] }
const overloaded = Object.assign(new Error('overloaded'), { status: 503 })

async function drain(source: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = []
  for await (const chunk of source) out.push(chunk)
  return out
}

describe('callSdk', () => {
  it('returns what the call resolves to', async () => {
    expect(await callSdk('p', request, async () => 42)).toBe(42)
  })

  it('turns a failed call into a classified ProviderError of the provider', async () => {
    const error = await callSdk('p', request, () => Promise.reject(overloaded)).catch((e: unknown) => e)
    expect(isProviderError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'http-5xx', status: 503, provider: 'p', cause: overloaded })
  })

  it('classifies a failure after the request was aborted as aborted', async () => {
    const aborted = { ...request, signal: AbortSignal.abort() }
    await expect(callSdk('p', aborted, () => Promise.reject(new Error('boom')))).rejects.toMatchObject({ kind: 'aborted' })
  })

  class RateLimitError extends Error {}
  it.each([
    ['a DNS failure (ENOTFOUND)', Object.assign(new Error('getaddrinfo ENOTFOUND api.example.com'), { code: 'ENOTFOUND' }), 'network'],
    ['a closed undici socket (UND_ERR_SOCKET)', Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }), 'network'],
    ['a socket error carried by its cause', new TypeError('request failed', { cause: { code: 'UND_ERR_SOCKET' } }), 'network'],
    ['a "too many requests" message', new Error('Too Many Requests'), 'rate-limit'],
    ["an SDK's RateLimitError class without a status", new RateLimitError('slow down'), 'rate-limit'],
  ])('classifies %s like the gate does, as its transient kind', async (_name, thrown, kind) => {
    const error = await callSdk('p', request, () => Promise.reject(thrown)).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind, provider: 'p', cause: thrown })
    expect(classifyError(thrown).kind).toBe(kind)
  })

  it('passes a ProviderError through unchanged', async () => {
    const original = new ProviderError('limited', { kind: 'rate-limit' })
    await expect(callSdk('p', request, () => Promise.reject(original))).rejects.toBe(original)
  })
})

describe('streamSdk', () => {
  const text = (t: string): StreamChunk => ({ type: 'text', text: t })

  it('yields the chunks of the opened stream', async () => {
    const chunks = await drain(
      streamSdk(
        'p',
        request,
        async () => ['a', 'b'],
        async function* (source) {
          for (const t of source) yield text(t)
        },
      ),
    )
    expect(chunks).toEqual([text('a'), text('b')])
  })

  it('turns a failure to open the stream into a ProviderError', async () => {
    const stream = streamSdk(
      'p',
      request,
      () => Promise.reject(overloaded),
      async function* () {},
    )
    await expect(drain(stream)).rejects.toMatchObject({ name: 'ProviderError', kind: 'http-5xx' })
  })

  it('turns a failure mid-stream into a ProviderError after the chunks before it', async () => {
    const seen: StreamChunk[] = []
    const stream = streamSdk(
      'p',
      request,
      async () => null,
      async function* () {
        yield text('a')
        throw overloaded
      },
    )
    const error = await (async () => {
      for await (const chunk of stream) seen.push(chunk)
    })().catch((e: unknown) => e)
    expect(seen).toEqual([text('a')])
    expect(error).toMatchObject({ name: 'ProviderError', kind: 'http-5xx' })
  })

  it('does not open the stream before it is iterated', () => {
    let opened = false
    streamSdk(
      'p',
      request,
      async () => (opened = true),
      async function* () {},
    )
    expect(opened).toBe(false)
  })
})

describe('signalOption', () => {
  it('carries the request signal, and nothing without one', () => {
    const signal = new AbortController().signal
    expect(signalOption({ ...request, signal })).toEqual({ signal })
    expect(signalOption(request)).toEqual({})
  })
})

describe('requestModel', () => {
  it("prefers the request's model, then the adapter's", () => {
    expect(requestModel('p', { ...request, model: 'a' }, 'b')).toBe('a')
    expect(requestModel('p', request, 'b')).toBe('b')
  })

  it('throws a TypeError naming the provider when neither names a model', () => {
    expect(() => requestModel('p', request, undefined)).toThrow(new TypeError('p: no model given (set it on the gate, the request or the adapter)'))
  })
})
