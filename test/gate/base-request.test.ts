import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type BaseSource, baseRequest } from '../../src/gate/base-request.ts'
import { resolveProviders, type ResolvedProvider } from '../../src/gate/resolved-provider.ts'
import { compileSchema } from '../../src/validation/index.ts'
import { createGate, strictOutputRules, type ModelRequest, type Provider } from '../../src/index.ts'
import { fullCollector } from '../support/collector.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'

const schema = compileSchema(Refund)
const callerSignal = new AbortController().signal
const runSignal = new AbortController().signal
const callerSchema = { type: 'object', properties: { note: { type: 'string' } } }

/** A key of the caller's request: absent, present with `undefined`, or present with a value. */
const optional = <T>(value: fc.Arbitrary<T>) => fc.oneof(fc.constant('absent' as const), fc.constant(undefined), value)

const requestArb = fc
  .record({
    system: optional(fc.constant('be brief')),
    model: optional(fc.constantFrom('caller-model', 'entry-model')),
    maxTokens: optional(fc.integer({ min: 1, max: 4096 })),
    responseSchema: optional(fc.constant(callerSchema)),
    signal: optional(fc.constant(callerSignal)),
    // A key the type does not name still reaches the provider, as a spread keeps it.
    providerHint: optional(fc.constant({ cache: true })),
    messagesFirst: fc.boolean(),
  })
  .map(({ messagesFirst, ...keys }) => {
    const request: Record<string, unknown> = messagesFirst ? { messages: [{ role: 'user', content: 'hi' }] } : {}
    for (const [key, value] of Object.entries(keys)) if (value !== 'absent') request[key] = value
    if (!messagesFirst) request.messages = [{ role: 'user', content: 'hi' }]
    return Object.freeze(request) as unknown as ModelRequest
  })

const idle: Provider = { name: 'p', complete: async () => ({ content: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' }) }

const entryArb = fc
  .record({ entryModel: fc.option(fc.constant('entry-model'), { nil: undefined }), gateModel: fc.option(fc.constant('gate-model'), { nil: undefined }) })
  .map(({ entryModel, gateModel }) => {
    return resolveProviders([{ provider: idle, ...(entryModel !== undefined ? { model: entryModel } : {}) }], gateModel)[0] as ResolvedProvider
  })

/** What the request is made from: the caller's `request`, the run's `signal`, and the gate's output schema when it checks one. */
const runOf = (request: ModelRequest, withSchema: boolean, signal: AbortSignal | undefined): BaseSource => ({
  request,
  signal,
  settings: { schema: withSchema ? schema : undefined },
  g: { wireSchema: schema.jsonSchema },
})

/** The request the provider must be sent, written out from the rules, key by key. */
function expectedKeys(entry: ResolvedProvider, request: ModelRequest, withSchema: boolean, signal: AbortSignal | undefined): Map<string, unknown> {
  const keys = new Map<string, unknown>(Object.entries(request))
  const model = entry.model ?? request.model ?? entry.defaultModel
  const responseSchema = request.responseSchema ?? (withSchema ? schema.jsonSchema : undefined)
  // Nothing to add or change: the caller's own object, as it is.
  if (model === request.model && responseSchema === request.responseSchema && signal === request.signal) return keys
  if (model !== undefined) keys.set('model', model)
  if (responseSchema !== undefined) keys.set('responseSchema', responseSchema)
  if (signal !== undefined) keys.set('signal', signal)
  else keys.delete('signal')
  return keys
}

describe('the request a provider is sent (baseRequest)', () => {
  it('holds exactly the caller’s keys and values, with the provider’s model, the output schema and the run’s signal; the caller’s object is never changed', () => {
    fc.assert(
      fc.property(entryArb, requestArb, fc.boolean(), fc.boolean(), (entry, request, withSchema, withSignal) => {
        const before = new Map(Object.entries(request))
        const signal = withSignal ? runSignal : undefined
        const base = baseRequest(entry, runOf(request, withSchema, signal))
        const expected = expectedKeys(entry, request, withSchema, signal)
        expect(new Map(Object.entries(base))).toEqual(expected)
        for (const [key, value] of expected) expect(Object.is((base as unknown as Record<string, unknown>)[key], value)).toBe(true)
        // Nothing to add or change: the caller's own object, not a copy.
        const unchanged = base.model === request.model && base.responseSchema === request.responseSchema && base.signal === request.signal
        expect(base === request).toBe(unchanged && Object.keys(base).length === before.size)
        expect(new Map(Object.entries(request))).toEqual(before)
      }),
      { numRuns: 800 },
    )
  })

  it('keeps nothing of a request on the provider entry: a frozen entry of its settings only', () => {
    const [entry] = resolveProviders([{ provider: idle, model: 'm' }], undefined) as [ResolvedProvider]
    baseRequest(entry, runOf({ system: 'secret prompt', messages: [{ role: 'user', content: 'secret' }], maxTokens: 9 }, true, runSignal))
    expect(Object.isFrozen(entry)).toBe(true)
    expect(Object.keys(entry).sort()).toEqual(['breakerKey', 'defaultModel', 'model', 'name', 'outputModes', 'provider'])
    expect(JSON.stringify(Object.values(entry))).not.toContain('secret')
  })

  it('no request outlives its run: the gate keeps nothing of what the caller sent, on the quick and the full path', async () => {
    const gc = fullCollector()
    expect(gc, 'this test needs V8’s gc, exposed at run time').toBeDefined()
    const answers = [validRefundJson, '{"orderId": 42}', validRefundJson]
    let i = 0
    const provider: Provider = {
      name: 'p',
      complete: async () => ({ content: answers[i++ % 3] as string, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }),
    }
    const gate = createGate({ providers: [provider], outputSchema: Refund, postDecide: strictOutputRules(3) })
    // First run: the quick path (a valid first answer); second: the full path (one retry with feedback).
    const sent = async (): Promise<WeakRef<object>> => {
      const messages = [{ role: 'user' as const, content: 'x'.repeat(100_000) }]
      await gate.run({ system: 'a system prompt', messages })
      return new WeakRef(messages)
    }
    const quick = await sent()
    const full = await sent()
    expect(i).toBe(3)
    await new Promise((resolve) => setTimeout(resolve, 0))
    gc?.()
    expect(quick.deref()).toBeUndefined()
    expect(full.deref()).toBeUndefined()
    // The gate itself is still in use.
    i = 0
    expect((await gate.run({ messages: [{ role: 'user', content: 'again' }] })).value).toEqual(JSON.parse(validRefundJson))
  })
})
