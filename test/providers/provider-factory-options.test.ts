import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { classifyError, ProviderError } from '../../src/index.ts'
import { aiSdk } from '../../src/integrations/ai-sdk.ts'
import { anthropic, toAnthropicRequest } from '../../src/providers/anthropic/index.ts'
import { scripted, simulated } from '../../src/providers/index.ts'
import { openai, toOpenAIRequest } from '../../src/providers/openai/index.ts'

const openAIClient = { chat: { completions: { create: async () => ({}) } } }
const anthropicClient = { messages: { create: async () => ({}) } }
const languageModel = { specificationVersion: 'v3', provider: 'p', modelId: 'm', doGenerate: async () => ({}), doStream: async () => ({}) }
const request = { messages: [{ role: 'user' as const, content: 'hi' }] }

describe('ProviderError options', () => {
  it('refuses a misspelt kind with "did you mean"', () => {
    expect(() => new ProviderError('x', { knd: 'timeout' } as never)).toThrow(TypeError)
    expect(() => new ProviderError('x', { knd: 'timeout' } as never)).toThrow(/did you mean "kind"/)
  })

  it('keeps its own message for a kind that is no error kind', () => {
    expect(() => new ProviderError('x', { kind: 'rate_limit' } as never)).toThrow(/ProviderError: options\.kind must be one of/)
  })

  it('derives the kind from a status when no kind is given, as classifyError reads it; a given kind wins', () => {
    expect(new ProviderError('x', { status: 503 }).kind).toBe('http-5xx')
    expect(new ProviderError('x', { status: 429 }).kind).toBe('rate-limit')
    expect(new ProviderError('x', { status: 408 }).kind).toBe('timeout')
    expect(new ProviderError('x', { status: 401 }).kind).toBe('auth')
    expect(new ProviderError('x', { status: 400, code: 'context_length_exceeded' }).kind).toBe('context-overflow')
    expect(new ProviderError('x', { status: 418 }).kind).toBe('unknown')
    expect(new ProviderError('x', { status: 503, kind: 'network' }).kind).toBe('network')
    expect(new ProviderError('x', { status: 503 })).toMatchObject({ status: 503 })
    for (const status of [0, 200, 400, 404, 409, 413, 500, 529, 999]) {
      const error = new ProviderError('x', { status })
      expect(error.kind).toBe(classifyError(new ProviderError('x', { kind: 'unknown', status })).kind)
      expect(classifyError(error).kind).toBe(error.kind)
    }
  })

  it('refuses options with neither a kind nor a status, and a status that cannot be one', () => {
    expect(() => new ProviderError('x', {} as never)).toThrow(/ProviderError: options\.kind must be one of .* \(or options\.status given\), got undefined/)
    expect(() => new ProviderError('x', { code: 'rl' } as never)).toThrow(TypeError)
    expect(() => new ProviderError('x', { status: 1000 })).toThrow(RangeError)
    expect(() => new ProviderError('x', { status: 503, kind: 'bogus' } as never)).toThrow(/got "bogus"/)
  })

  it.each([
    ['status', 1.5],
    ['status', Number.NaN],
    ['status', '429'],
    ['retryAfterMs', -1],
    ['retryAfterMs', Number.POSITIVE_INFINITY],
    ['retryAfterMs', Number.NaN],
    ['retryAfterMs', 2 ** 31],
    ['retryAfterMs', 2 ** 40],
  ])('refuses %s = %s, naming it', (key, value) => {
    expect(() => new ProviderError('x', { kind: 'rate-limit', [key]: value } as never)).toThrow(key)
  })

  it('takes a retryAfterMs up to the longest wait a timer holds (2^31-1 ms), and refuses one past it with a RangeError', () => {
    expect(new ProviderError('x', { kind: 'rate-limit', retryAfterMs: 2 ** 31 - 1 }).retryAfterMs).toBe(2 ** 31 - 1)
    expect(() => new ProviderError('x', { kind: 'rate-limit', retryAfterMs: 2 ** 31 })).toThrow(RangeError)
    expect(() => new ProviderError('x', { kind: 'rate-limit', retryAfterMs: 2 ** 31 })).toThrow(
      /retryAfterMs must be a number of milliseconds from 0 to 2147483647/,
    )
  })

  it('still builds from every option it takes, and without options', () => {
    const cause = new Error('socket')
    const error = new ProviderError('x', { kind: 'rate-limit', status: 429, code: 'rl', retryAfterMs: 1500, provider: 'p', cause })
    expect(error).toMatchObject({ kind: 'rate-limit', status: 429, code: 'rl', retryAfterMs: 1500, provider: 'p', cause })
    expect(new ProviderError('x').kind).toBe('unknown')
  })

  it('refuses any key it does not take, naming it', () => {
    const keys = ['kind', 'status', 'code', 'retryAfterMs', 'provider', 'cause']
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !keys.includes(k) && k !== '__proto__'),
        (key) => {
          expect(() => new ProviderError('x', { kind: 'timeout', [key]: 1 } as never)).toThrow(TypeError)
        },
      ),
    )
  })
})

describe('provider factory options', () => {
  it('scripted refuses a misspelt or empty name', () => {
    expect(() => scripted(['x'], { nmae: 'a' } as never)).toThrow(/scripted: unknown option "nmae" \(did you mean "name"\?\)/)
    expect(() => scripted(['x'], { name: '' })).toThrow(TypeError)
    expect(scripted(['x'], { name: 'mine' }).name).toBe('mine')
  })

  it.each([
    [{ Seed: 1 }, /did you mean "seed"/],
    [{ latencyMs: 2 ** 31 }, /latencyMs/],
    [{ latencyMs: -1 }, /latencyMs/],
    [{ seed: Number.NaN }, /seed/],
    [{ seed: '7' }, /seed/],
    [{ ignoreFeedback: 'yes' }, /ignoreFeedback/],
  ])('simulated refuses %j', (options, message) => {
    expect(() => simulated(options as never)).toThrow(message)
  })

  it('openai refuses a misspelt option and a structuredOutput it does not know, and keeps its client message', () => {
    expect(() => openai({ client: openAIClient, modle: 'gpt' } as never)).toThrow(/openai: unknown option "modle" \(did you mean "model"\?\)/)
    expect(() => openai({ client: openAIClient, structuredOutput: 'strcit' } as never)).toThrow(/openai: structuredOutput must be one of/)
    expect(() => openai(null as never)).toThrow(/openai: options\.client must be an OpenAI client/)
    expect(() => openai({} as never)).toThrow(/openai: options\.client must be an OpenAI client/)
  })

  it('anthropic refuses maxTokens that is no positive integer', () => {
    for (const maxTokens of [0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '100'])
      expect(() => anthropic({ client: anthropicClient, maxTokens } as never)).toThrow(/anthropic: maxTokens/)
    expect(() => anthropic({ client: anthropicClient, maxtokens: 10 } as never)).toThrow(/did you mean "maxTokens"/)
  })

  it('the request builders check their settings', () => {
    const openAISettings = { model: 'm', structuredOutput: 'json_schema' as const, schemaName: 'r', extraBody: undefined }
    expect(toOpenAIRequest(request, openAISettings).model).toBe('m')
    expect(() => toOpenAIRequest(request, { ...openAISettings, schemaname: 'x' } as never)).toThrow(
      /toOpenAIRequest: unknown option "schemaname" \(did you mean "schemaName"\?\)/,
    )
    const anthropicSettings = { model: 'm', maxTokens: 10, cache: false, structuredOutput: false, extraBody: undefined }
    expect(toAnthropicRequest(request, anthropicSettings).max_tokens).toBe(10)
    expect(() => toAnthropicRequest(request, { ...anthropicSettings, maxTokens: -5 })).toThrow(RangeError)
  })

  it('the request builders refuse a value that is no request with a TypeError naming the builder and the place, never one from inside', () => {
    const openAISettings = { model: 'm', structuredOutput: 'json_schema' as const, schemaName: 'r', extraBody: undefined }
    const anthropicSettings = { model: 'm', maxTokens: 10, cache: false, structuredOutput: false, extraBody: undefined }
    const notRequests: readonly [unknown, RegExp][] = [
      [null, /request must be an object with a `messages` array, got null/],
      [{}, /request\.messages must be an array of messages, got undefined/],
      [{ messages: [null] }, /request\.messages\[0\] must be a message object, got null/],
      [{ messages: [{ role: 'user', content: 7 }] }, /request\.messages\[0\]\.content must be a string/],
      [{ messages: [{ role: 'assistant', content: '', toolCalls: [null] }] }, /request\.messages\[0\]\.toolCalls\[0\] must be a tool call/],
      [{ messages: [], tools: [null] }, /request\.tools\[0\] must be a tool spec/],
    ]
    for (const [value, message] of notRequests) {
      expect(() => toOpenAIRequest(value as never, openAISettings)).toThrow(new RegExp(`^toOpenAIRequest: ${message.source}`))
      expect(() => toAnthropicRequest(value as never, anthropicSettings)).toThrow(new RegExp(`^toAnthropicRequest: ${message.source}`))
      expect(() => toOpenAIRequest(value as never, openAISettings)).toThrow(TypeError)
    }
  })

  it('aiSdk refuses a misspelt option', () => {
    expect(() => aiSdk(languageModel as never, { structuredoutput: false } as never)).toThrow(
      /aiSdk: unknown option "structuredoutput" \(did you mean "structuredOutput"\?\)/,
    )
    expect(() => aiSdk(languageModel as never, { structuredOutput: 'no' } as never)).toThrow(TypeError)
  })
})

describe('Provider adapters called directly', () => {
  /** Every bundled adapter, with an SDK that would answer (and counts what reaches it). */
  function adapters() {
    const sent: unknown[] = []
    const answer = async (body: unknown) => {
      sent.push(body)
      return {}
    }
    const list = {
      openai: openai({ client: { chat: { completions: { create: answer } } } as never, model: 'm' }),
      anthropic: anthropic({ client: { messages: { create: answer } } as never, model: 'm' }),
      aiSdk: aiSdk({ ...languageModel, doGenerate: answer, doStream: answer } as never),
      scripted: scripted(['{}']),
      simulated: simulated(),
    }
    return { list, sent }
  }
  const notRequests: readonly [string, unknown, RegExp][] = [
    ['null', null, /request must be an object with a `messages` array, got null/],
    ['a number', 42, /request must be an object with a `messages` array, got number/],
    ['no messages', { system: 'x' }, /request\.messages must be an array of messages, got undefined/],
    ['messages as a string', { messages: 'hi' }, /request\.messages must be an array of messages, got string/],
    ['a null message', { messages: [null] }, /request\.messages\[0\] must be a message object, got null/],
    ['a misspelt key', { ...request, toolchoice: 'auto' }, /request: unknown key "toolchoice" \(did you mean "toolChoice"\?\)/],
  ]

  it.each(notRequests)('complete refuses %s with a TypeError naming the adapter, nothing sent', async (_, value, message) => {
    const { list, sent } = adapters()
    for (const [adapter, provider] of Object.entries(list)) {
      const error = await provider.complete(value as never).catch((e: unknown) => e)
      expect(error, adapter).toBeInstanceOf(TypeError)
      expect((error as Error).message).toMatch(new RegExp(`^${adapter}\\.complete: ${message.source}`))
    }
    expect(sent).toEqual([])
    expect(list.scripted.calls).toBe(0)
  })

  it.each(notRequests)('stream refuses %s at the call, as gate.stream does, nothing sent', (_, value, message) => {
    const { list, sent } = adapters()
    for (const [adapter, provider] of Object.entries(list)) {
      expect(() => provider.stream(value as never), adapter).toThrow(new RegExp(`^${adapter}\\.stream: ${message.source}`))
      expect(() => provider.stream(value as never), adapter).toThrow(TypeError)
    }
    expect(sent).toEqual([])
  })

  it('refuses a request whose getter throws with a TypeError, never the getter error raw', async () => {
    const hostile = Object.defineProperty({}, 'messages', {
      enumerable: true,
      get() {
        throw new RangeError('boom')
      },
    })
    const { list } = adapters()
    await expect(list.openai.complete(hostile as never)).rejects.toThrow(/^openai\.complete: reading it threw \(boom\)/)
  })
})
