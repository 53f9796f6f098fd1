import { describe, expect, it } from 'vitest'
import {
  Agent,
  createGate,
  failoverRule,
  isReliabilityFailFastError,
  ProviderError,
  strictOutputRules,
  type ModelRequest,
  type Provider,
} from '../../src/index.ts'
import { heldProvider } from '../support/held-provider.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'

/** A provider that answers a valid refund and counts its calls. */
function counting(name = 'p'): Provider & { calls: number } {
  const provider = {
    name,
    calls: 0,
    complete: async () => {
      provider.calls++
      return { content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' as const }
    },
  }
  return provider
}

const NOT_REQUESTS: readonly [string, unknown, RegExp][] = [
  ['undefined', undefined, /gate\.run: request must be an object with a `messages` array, got undefined/],
  ['null', null, /gate\.run: request must be an object with a `messages` array, got null/],
  ['a string', 'refund order 42', /got string/],
  ['a number', 42, /got number/],
  ['an array of messages', [{ role: 'user', content: 'hi' }], /got an array/],
  ['an object without messages', {}, /gate\.run: request\.messages must be an array of messages, got undefined/],
  ['messages as a string', { messages: 'hi' }, /request\.messages must be an array of messages, got string/],
  ['messages as null', { messages: null }, /request\.messages must be an array of messages, got null/],
  ['messages as an object', { messages: { 0: { role: 'user', content: 'hi' } } }, /got object/],
  ['a system prompt that is a number', { ...ask('hi'), system: 7 }, /request\.system must be a string, got number/],
  ['a model that is an object', { ...ask('hi'), model: { name: 'gpt' } }, /request\.model must be a string, got object/],
  ["an empty model, which would be sent as the model's name", { ...ask('hi'), model: '' }, /request\.model must be a non-empty string, got ""/],
  ['tools as an object', { ...ask('hi'), tools: { lookup: {} } }, /request\.tools must be an array of tool specs, got object/],
  // Each of these reached an adapter, which failed with its own "Cannot read properties of null" as kind unknown.
  ['a tool spec that is null', { ...ask('hi'), tools: [null] }, /request\.tools\[0\] must be a tool spec \{ name, description, inputSchema \}, got null/],
  ['a tool spec without a name', { ...ask('hi'), tools: [{ inputSchema: {} }] }, /request\.tools\[0\]\.name must be a non-empty string, got undefined/],
  [
    'a tool spec whose inputSchema is null',
    { ...ask('hi'), tools: [{ name: 'lookup', inputSchema: null }] },
    /request\.tools\[0\]\.inputSchema must be a JSON Schema object, got null/,
  ],
  [
    'a tool spec whose description is a number',
    { ...ask('hi'), tools: [{ name: 'lookup', description: 7, inputSchema: {} }] },
    /request\.tools\[0\]\.description must be a string, got number/,
  ],
  [
    'an assistant turn whose tool calls hold null',
    {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', toolCalls: [null] },
      ],
    },
    /request\.messages\[1\]\.toolCalls\[0\] must be a tool call \{ id, name, args \}, got null/,
  ],
  [
    'a tool call whose id is a number',
    {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', toolCalls: [{ id: 7, name: 'lookup', args: {} }] },
      ],
    },
    /request\.messages\[1\]\.toolCalls\[0\]\.id must be a string, got number/,
  ],
  [
    'a tool call without a name',
    {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', args: {} }] },
      ],
    },
    /request\.messages\[1\]\.toolCalls\[0\]\.name must be a string, got undefined/,
  ],
  [
    'a tool result whose toolCallId is an object',
    {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', content: 'ok', toolCallId: { id: 'c1' } },
      ],
    },
    /request\.messages\[1\]\.toolCallId must be a string, got object/,
  ],
  [
    'reasoning that is a string',
    {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'a', reasoning: 'thought' },
        { role: 'user', content: 'go on' },
      ],
    },
    /request\.messages\[1\]\.reasoning must be an array of reasoning blocks, got string/,
  ],
  [
    'reasoning that holds null',
    {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'a', reasoning: [null] },
        { role: 'user', content: 'go on' },
      ],
    },
    /request\.messages\[1\]\.reasoning must hold reasoning blocks \(\{ text \}\), got null/,
  ],
  ['maxTokens as text', { ...ask('hi'), maxTokens: '100' }, /request\.maxTokens must be a positive integer, got "100"/],
  ['maxTokens of zero', { ...ask('hi'), maxTokens: 0 }, /request\.maxTokens must be a positive integer, got 0/],
  ['maxTokens of 1.5', { ...ask('hi'), maxTokens: 1.5 }, /got 1\.5/],
  ['maxTokens of NaN', { ...ask('hi'), maxTokens: Number.NaN }, /got NaN/],
  [
    'a responseSchema that is a string',
    { ...ask('hi'), responseSchema: '{"type":"object"}' },
    /request\.responseSchema must be a JSON Schema object, got string/,
  ],
  ['a signal that is a plain object', { ...ask('hi'), signal: { aborted: false } }, /request\.signal must be an AbortSignal, got object/],
]

const BAD_OPTIONS: readonly [string, unknown, RegExp][] = [
  ['null', null, /options must be an object, got null/],
  ['a number', 5, /options must be an object, got number/],
  ['a string', 'fast', /options must be an object, got string/],
  ['a signal that is a string', { signal: 'abort' }, /signal must be an AbortSignal, got "abort"/],
  ['a signal that is a plain object', { signal: { aborted: false } }, /signal must be an AbortSignal, got object/],
  ['a runId that is a number', { runId: 42 }, /runId must be a non-empty string, got 42/],
  ['an empty runId', { runId: '' }, /runId must be a non-empty string, got ""/],
  ['metadata that is a string', { metadata: 'tenant-1' }, /metadata must be an object, got "tenant-1"/],
  ['metadata that is an array', { metadata: ['tenant-1'] }, /metadata must be an object, got an array/],
]

describe('gate.run called with something that is not a request', () => {
  it.each(NOT_REQUESTS)('rejects %s with a TypeError, without calling a provider or emitting an event', async (_name, request, message) => {
    const provider = counting()
    const gate = createGate({ providers: [provider], outputSchema: Refund, postDecide: strictOutputRules(3) })
    const heard: string[] = []
    gate.events$.subscribe((event) => heard.push(event.type))
    let run: Promise<unknown> | undefined
    expect(() => {
      run = gate.run(request as ModelRequest)
    }).not.toThrow()
    await expect(run).rejects.toThrow(TypeError)
    await expect(run).rejects.toThrow(message)
    expect(provider.calls).toBe(0)
    expect(heard).toEqual([])
    // The gate is unharmed: the next proper request runs.
    expect((await gate.run(ask('refund order 42'))).value).toEqual(validRefund)
  })

  it.each(BAD_OPTIONS)('rejects options with %s with a TypeError', async (_name, options, message) => {
    const provider = counting()
    const gate = createGate({ providers: [provider], outputSchema: Refund })
    await expect(gate.run(ask('hi'), options as never)).rejects.toThrow(new RegExp(`gate\\.run: ${message.source}`))
    expect(provider.calls).toBe(0)
  })

  it('takes a signal of another implementation (an AbortSignal polyfill, not an instance of this realm’s), and aborts with it', async () => {
    /** What an `abort-controller` polyfill gives: an EventTarget with `aborted` and `reason`. */
    class PolyfillSignal extends EventTarget {
      aborted = false
      reason: unknown = undefined
      abort(reason: unknown): void {
        this.aborted = true
        this.reason = reason
        this.dispatchEvent(new Event('abort'))
      }
    }
    const gate = createGate({ providers: [counting()], outputSchema: Refund })
    const idle = new PolyfillSignal()
    expect(idle instanceof AbortSignal).toBe(false)
    expect((await gate.run(ask('hi'), { signal: idle as unknown as AbortSignal })).value).toEqual(validRefund)
    const held = heldProvider(validRefundJson)
    const slow = createGate({ providers: [held.provider], outputSchema: Refund })
    const signal = new PolyfillSignal()
    const run = slow.run(ask('hi'), { signal: signal as unknown as AbortSignal })
    signal.abort(new Error('user left'))
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isReliabilityFailFastError(error) && error.kind).toBe('aborted')
  })

  it('answers a request whose getters throw with their error, as a rejection, on the quick and the full path', async () => {
    const boom = new Error('getter exploded')
    const hostile: readonly (() => ModelRequest)[] = [
      () =>
        ({
          get messages(): never {
            throw boom
          },
        }) as ModelRequest,
      () =>
        ({
          messages: [{ role: 'user', content: 'hi' }],
          get model(): never {
            throw boom
          },
        }) as unknown as ModelRequest,
      () =>
        new Proxy(ask('hi'), {
          ownKeys() {
            throw boom
          },
        }),
    ]
    for (const listening of [false, true]) {
      const provider = counting()
      const gate = createGate({ providers: [provider], outputSchema: Refund })
      // A listener of the run's events puts every run on the full path.
      if (listening) gate.on('attempt_start', () => undefined)
      for (const make of hostile) {
        let run: Promise<unknown> | undefined
        expect(() => {
          run = gate.run(make())
        }).not.toThrow()
        await expect(run).rejects.toBe(boom)
      }
      expect(provider.calls).toBe(0)
      expect((await gate.run(ask('hi'))).value).toEqual(validRefund)
    }
  })

  it('settles when a getter throws only once the run is under way (failover reads the request again)', async () => {
    let called = false
    const first: Provider = {
      name: 'first',
      complete: async () => {
        called = true
        throw new ProviderError('slow down', { kind: 'rate-limit', status: 429 })
      },
    }
    const second = counting('second')
    const request = {
      messages: [{ role: 'user' as const, content: 'hi' }],
      get model(): string {
        if (called) throw new Error('model read after the first call')
        return 'm'
      },
    }
    const gate = createGate({ providers: [first, second], outputSchema: Refund, postDecide: [failoverRule(), ...strictOutputRules(3)] })
    const error = await gate.run(request).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(called).toBe(true)
    expect(second.calls).toBe(0)
    // The run settles (nothing hangs) with the getter's error, as it is or as the cause of a fail-fast.
    const cause = isReliabilityFailFastError(error) ? error.cause : error
    expect(cause).toMatchObject({ message: 'model read after the first call' })
  })
})

describe('gate.stream called with something that is not a request', () => {
  it.each(NOT_REQUESTS)('throws a TypeError at once for %s', (_name, request, message) => {
    const provider = counting()
    const gate = createGate({ providers: [provider], outputSchema: Refund })
    expect(() => gate.stream(request as ModelRequest)).toThrow(TypeError)
    expect(() => gate.stream(request as ModelRequest)).toThrow(new RegExp(message.source.replace('gate\\.run', 'gate\\.stream')))
    expect(provider.calls).toBe(0)
  })
})

describe('gate.stream and the agent called with options that are not options', () => {
  it.each(BAD_OPTIONS)('gate.stream throws a TypeError at once for options with %s', (_name, options, message) => {
    const gate = createGate({ providers: [counting()], outputSchema: Refund })
    expect(() => gate.stream(ask('hi'), options as never)).toThrow(new RegExp(`gate\\.stream: ${message.source}`))
  })

  it('gate.stream refuses a mode that is none of its three', () => {
    const gate = createGate({ providers: [counting()], outputSchema: Refund })
    expect(() => gate.stream(ask('hi'), { mode: 'chunked' as never })).toThrow(
      /gate\.stream: mode must be one of "passthrough", "buffer", "progressive", got "chunked"/,
    )
  })

  it.each(BAD_OPTIONS.filter(([name]) => name !== 'null'))(
    'agent.run rejects options with %s with a TypeError, history unchanged',
    async (_name, options, message) => {
      const provider = counting()
      const agent = Agent.create({ provider, model: 'm', name: 'a' }).outputSchema(Refund).build()
      const session = agent.session()
      await expect(session.run('refund order 42', options as never)).rejects.toThrow(new RegExp(`agent\\.run: ${message.source}`))
      expect(() => session.stream('refund order 42', options as never)).toThrow(new RegExp(`agent\\.stream: ${message.source}`))
      expect(provider.calls).toBe(0)
      expect(session.history).toEqual([])
    },
  )
})
