import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createGate, type ModelRequest, type Provider } from '../../src/index.ts'
import { checkRequest, REQUEST_KEYS } from '../../src/model/request-problem.ts'
import { checkRunOptions, GATE_RUN_OPTIONS } from '../../src/gate/run-options-contract.ts'

/** A provider that answers at once and counts its calls. */
function counting(): Provider & { calls: number } {
  const provider = {
    name: 'p',
    calls: 0,
    complete: async () => {
      provider.calls++
      return { content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' as const }
    },
  }
  return provider
}

const ask: ModelRequest = { messages: [{ role: 'user', content: 'hi' }] }
const HOSTILE_DURATIONS: readonly unknown[] = [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '100', 2 ** 31, 1.5, null, true]

/** What `call` threw or rejected with; `undefined` when it was accepted. */
async function errorOf(call: () => unknown): Promise<unknown> {
  try {
    await call()
    return undefined
  } catch (error) {
    return error
  }
}

/** What `call` threw synchronously; `undefined` when it returned. */
function thrownBy(call: () => unknown): unknown {
  try {
    call()
    return undefined
  } catch (error) {
    return error
  }
}

describe('gate.run options', () => {
  it('refuses a misspelt runTimeoutMs with "did you mean", without calling the provider', async () => {
    const provider = counting()
    const gate = createGate({ providers: provider })
    const error = await errorOf(() => gate.run(ask, { runTimoutMs: 5 } as never))
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toContain('gate.run: unknown option "runTimoutMs" (did you mean "runTimeoutMs"?)')
    expect(provider.calls).toBe(0)
  })

  it('refuses a misspelt signal on gate.run and gate.stream', async () => {
    const gate = createGate({ providers: counting() })
    const signal = new AbortController().signal
    await expect(gate.run(ask, { singal: signal } as never)).rejects.toThrow(/did you mean "signal"/)
    expect(() => gate.stream(ask, { singal: signal } as never)).toThrow(/gate\.stream: unknown option "singal" \(did you mean "signal"\?\)/)
  })

  it.each(HOSTILE_DURATIONS.map((value) => [String(value), value]))('refuses runTimeoutMs = %s before the provider is called', async (_shown, value) => {
    const provider = counting()
    const gate = createGate({ providers: provider })
    const error = await errorOf(() => gate.run(ask, { runTimeoutMs: value as number }))
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain('gate.run: runTimeoutMs must be a whole number of milliseconds from 1 to 2147483647')
    expect(() => gate.stream(ask, { runTimeoutMs: value as number })).toThrow(/gate\.stream: runTimeoutMs must be/)
    expect(provider.calls).toBe(0)
  })

  it('takes any whole runTimeoutMs from 1 to 2^31-1 and refuses any integer outside', async () => {
    const gate = createGate({ providers: counting() })
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (ms) => {
        await expect(gate.run(ask, { runTimeoutMs: ms })).resolves.toMatchObject({ value: 'ok' })
      }),
      { numRuns: 30 },
    )
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER })), (ms) => {
        expect(() => gate.stream(ask, { runTimeoutMs: ms })).toThrow(RangeError)
      }),
    )
  })

  it('checks on the quick path exactly what the contract checks, with the contract’s error', () => {
    const key = fc.oneof(fc.constantFrom(...GATE_RUN_OPTIONS.keys), fc.string({ maxLength: 12 }))
    const value = fc.oneof(fc.anything(), fc.integer(), fc.constant(new AbortController().signal), fc.constant(undefined))
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 4 }), (options) => {
        expect(thrownBy(() => checkRunOptions(options as never))).toEqual(thrownBy(() => GATE_RUN_OPTIONS.check(options as never)))
      }),
    )
  })

  it('refuses a mode that is none of a stream’s three, naming them', () => {
    const gate = createGate({ providers: counting() })
    expect(() => gate.stream(ask, { mode: 'chunked' as never })).toThrow(/gate\.stream: mode must be one of "passthrough", "buffer", "progressive"/)
  })
})

describe('gate.run startProvider', () => {
  it("starts the run on the provider it names, asked for that provider's model, and says so in the result", async () => {
    const [a, b] = [counting(), counting()]
    const gate = createGate({
      providers: [
        { provider: a, name: 'a', model: 'model-a' },
        { provider: b, name: 'b', model: 'model-b' },
      ],
    })
    const starts: unknown[] = []
    gate.on('run_start', (e) => starts.push([e.provider, e.model]))
    const result = await gate.run(ask, { startProvider: 1 })
    expect([a.calls, b.calls]).toEqual([0, 1])
    expect(result).toMatchObject({ provider: 'b', providerIdx: 1 })
    expect(starts).toEqual([['b', 'model-b']])
    // Without it, or past the gate's providers, the run starts on the first.
    expect(await gate.run(ask)).toMatchObject({ provider: 'a', providerIdx: 0 })
    expect(await gate.run(ask, { startProvider: 7 })).toMatchObject({ provider: 'a', providerIdx: 0 })
  })

  it.each([-1, 1.5, Number.NaN, '1', null])('refuses startProvider %j with a typed error before any provider call', async (value) => {
    const provider = counting()
    const error = await errorOf(() => createGate({ providers: provider }).run(ask, { startProvider: value as never }))
    expect(error).toBeInstanceOf(RangeError)
    expect(String(error)).toMatch(/startProvider/)
    expect(provider.calls).toBe(0)
  })
})

describe('gate.run request', () => {
  it('refuses a misspelt toolChoice with "did you mean", before any provider call', async () => {
    const provider = counting()
    const gate = createGate({ providers: provider })
    const request = { ...ask, toolchoice: 'none' } as unknown as ModelRequest
    const error = await errorOf(() => gate.run(request))
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toMatch(/^gate\.run: request: unknown key "toolchoice" \(did you mean "toolChoice"\?\); a request holds system, messages/)
    expect(() => gate.stream(request)).toThrow(/gate\.stream: request: unknown key "toolchoice" \(did you mean "toolChoice"\?\)/)
    expect(provider.calls).toBe(0)
  })

  it.each(REQUEST_KEYS.map((key) => [key]))('takes the request key %s', async (key) => {
    // Present, but undefined: only the key check can object.
    expect(checkRequest(key === 'messages' ? ask : { ...ask, [key]: undefined })).toEqual(ask.messages)
  })

  it('refuses a key no request has (temperature), which a provider would never be sent', async () => {
    const gate = createGate({ providers: counting() })
    await expect(gate.run({ ...ask, temperature: 0 } as unknown as ModelRequest)).rejects.toThrow(/unknown key "temperature"/)
  })

  it('refuses any key outside the request’s own', async () => {
    const provider = counting()
    const gate = createGate({ providers: provider })
    const known = new Set(['system', 'messages', 'tools', 'toolChoice', 'model', 'maxTokens', 'responseSchema', 'signal', '__proto__'])
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 20 }).filter((key) => !known.has(key)),
        async (key) => {
          const request = { ...ask, [key]: 1 } as unknown as ModelRequest
          await expect(gate.run(request)).rejects.toThrow(TypeError)
        },
      ),
      { numRuns: 50 },
    )
    expect(provider.calls).toBe(0)
  })
})

describe('createGate durations', () => {
  it.each(HOSTILE_DURATIONS.filter((v) => v !== null && v !== true).map((value) => [String(value), value]))(
    'refuses timeoutMs and runTimeoutMs = %s with a RangeError naming the key',
    (_shown, value) => {
      for (const key of ['timeoutMs', 'runTimeoutMs']) {
        expect(() => createGate({ providers: counting(), [key]: value })).toThrow(RangeError)
        expect(() => createGate({ providers: counting(), [key]: value })).toThrow(new RegExp(`createGate: ${key} must be a whole number of milliseconds`))
      }
    },
  )

  it('takes the longest timer a runtime holds, 2^31-1 ms', () => {
    expect(() => createGate({ providers: counting(), timeoutMs: 2 ** 31 - 1, runTimeoutMs: 2 ** 31 - 1 })).not.toThrow()
  })
})
