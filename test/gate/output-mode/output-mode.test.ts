import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createGate, type ModelRequest, type Provider, type ProviderOutputModes, type ReliabilityRule } from '../../../src/index.ts'
import { ProviderError } from '../../../src/model/provider-error.ts'
import { compileProviderSchema } from '../../../src/validation/provider-schema/index.ts'
import { BoundedMap } from '../../../src/gate/output-mode/bounded-map.ts'

/** A provider that records each request and answers with the next text (or throws the next error). */
function recording(outputModes: ProviderOutputModes | undefined, answers: readonly (string | Error)[]) {
  const requests: ModelRequest[] = []
  let i = 0
  const provider: Provider = {
    name: 'rec',
    ...(outputModes !== undefined ? { outputModes } : {}),
    async complete(request) {
      requests.push(request)
      const answer = answers[Math.min(i++, answers.length - 1)] ?? ''
      if (answer instanceof Error) throw answer
      return { content: answer, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
    },
  }
  return { provider, requests }
}

const STRICT: ProviderOutputModes = { native: 'openai-strict', json: true }
const Answer = { type: 'object', properties: { title: { type: 'string' }, note: { type: 'string' } }, required: ['title'] } as const
const ask = { messages: [{ role: 'user' as const, content: 'go' }] }
const schemaRejected = () => new ProviderError('Invalid schema for response_format: bad', { kind: 'schema-rejected', status: 400 })

describe('outputMode', () => {
  it('is refused at createGate when it is not a mode, naming the modes', () => {
    const { provider } = recording(STRICT, ['{}'])
    expect(() => createGate({ providers: provider, outputMode: 'strict' as never })).toThrow(/outputMode must be 'auto', 'native', 'json' or 'prompt'/)
    expect(() => createGate({ providers: provider, outputmode: 'auto' } as never)).toThrow(/did you mean.*outputMode/)
  })

  it('is refused on a request when it is not a mode, before any call', async () => {
    const { provider, requests } = recording(STRICT, ['{}'])
    const gate = createGate({ providers: provider, outputSchema: Answer })
    await expect(gate.run({ ...ask, outputMode: 'native-ish' as never })).rejects.toThrow(TypeError)
    await expect(gate.run({ ...ask, nativeSchema: 'x' as never })).rejects.toThrow(/nativeSchema must be a JSON Schema object/)
    expect(requests).toHaveLength(0)
  })

  it('checks a provider’s outputModes once at createGate: a wrong dialect, a misspelt key or a throwing getter is a TypeError naming the provider', async () => {
    for (const [outputModes, message] of [
      [{ native: 'openai' }, /providers\[0\]\.outputModes: native must be one of/],
      [{ native: 'anthropic', json: 'yes' }, /providers\[0\]\.outputModes: json must be a boolean/],
      [{ nativ: 'anthropic' }, /did you mean "native"/],
      [
        {
          get native() {
            throw new Error('boom')
          },
        },
        /providers\[0\]/,
      ],
    ] as const) {
      const { provider } = recording(outputModes as never, ['{"title":"a"}'])
      expect(() => createGate({ providers: provider, outputSchema: Answer, outputMode: 'native' })).toThrow(TypeError)
      expect(() => createGate({ providers: provider, outputSchema: Answer, outputMode: 'native' })).toThrow(message)
    }
    // Read once: a getter that answers a dialect at creation and throws later changes nothing.
    let reads = 0
    const { provider, requests } = recording(
      {
        get native() {
          if (reads++ > 0) throw new Error('read again')
          return 'openai-strict' as const
        },
      },
      ['{"title":"a"}'],
    )
    const gate = createGate({ providers: provider, outputSchema: Answer, outputMode: 'native' })
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'a' } })
    expect(requests[0]?.outputMode).toBe('native')
  })

  it('changes nothing when absent: the request carries no mode and the system prompt is the caller’s', async () => {
    const { provider, requests } = recording(STRICT, ['{"title":"t"}'])
    await createGate({ providers: provider, outputSchema: Answer }).run({ ...ask, system: 'sys' })
    expect(requests[0]?.outputMode).toBeUndefined()
    expect(requests[0]?.nativeSchema).toBeUndefined()
    expect(requests[0]?.system).toBe('sys')
  })

  it('auto sends the native schema to a provider that has a native mode, and prompt mode to one that declares none', async () => {
    const native = recording(STRICT, ['{"title":"t","note":null}'])
    await createGate({ providers: native.provider, outputSchema: Answer, outputMode: 'auto' }).run(ask)
    expect(native.requests[0]?.outputMode).toBe('native')
    expect(native.requests[0]?.nativeSchema).toEqual((compileProviderSchema(Answer, 'openai-strict') as { schema: unknown }).schema)
    expect(Object.isFrozen(native.requests[0]?.nativeSchema)).toBe(true)
    const plain = recording(undefined, ['{"title":"t"}'])
    await createGate({ providers: plain.provider, outputSchema: Answer, outputMode: 'auto' }).run(ask)
    expect(plain.requests[0]?.outputMode).toBe('prompt')
    expect(plain.requests[0]?.system).toContain(JSON.stringify(Answer))
  })

  it('a request’s own mode wins over the gate’s', async () => {
    const { provider, requests } = recording(STRICT, ['{"title":"t"}'])
    const gate = createGate({ providers: provider, outputSchema: Answer, outputMode: 'native' })
    await gate.run({ ...ask, outputMode: 'json' })
    expect(requests[0]?.outputMode).toBe('json')
    expect(requests[0]?.nativeSchema).toBeUndefined()
  })

  it('json falls to prompt on a provider without a JSON mode', async () => {
    const { provider, requests } = recording({ native: 'anthropic', json: false }, ['{"title":"t"}'])
    await createGate({ providers: provider, outputSchema: Answer, outputMode: 'json' }).run(ask)
    expect(requests[0]?.outputMode).toBe('prompt')
  })

  it('native on a provider without a native mode is reported once and sent one mode down', async () => {
    const { provider, requests } = recording({ json: true }, ['{"title":"t"}'])
    const gate = createGate({ providers: provider, outputSchema: Answer, outputMode: 'native' })
    const seen: unknown[] = []
    gate.on('output_mode_demoted', (e) => seen.push(e))
    await gate.run(ask)
    await gate.run(ask)
    expect(requests.map((r) => r.outputMode)).toEqual(['json', 'json'])
    expect(seen).toEqual([expect.objectContaining({ cause: 'no-native-mode', from: 'native', to: 'json', provider: 'rec' })])
    expect(Object.isFrozen(seen[0])).toBe(true)
  })

  it('never mutates the caller’s request, and adds the schema instruction to the system prompt once per request', async () => {
    const { provider, requests } = recording({}, ['not json', '{"title":"t"}'])
    const request = Object.freeze({ ...ask, system: 'sys', outputMode: 'prompt' as const })
    const gate = createGate({
      providers: provider,
      outputSchema: Answer,
      maxAttempts: 3,
      postDecide: [{ when: (s) => s.errorKind === 'schema-fail', then: 'retry', kind: 'again' }],
    })
    await gate.run(request)
    expect(request.system).toBe('sys')
    for (const sent of requests) expect(sent.system?.split('JSON Schema').length).toBe(2)
  })

  it('a schema-rejected demotion retries once per mode and is remembered per provider and schema, not per request object', async () => {
    const { provider, requests } = recording(STRICT, [schemaRejected(), '{"title":"a"}'])
    const gate = createGate({ providers: provider, outputSchema: Answer, outputMode: 'auto' })
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'a' } })
    // An equal schema given per request (another object) is the same schema.
    await gate.run({ ...ask, responseSchema: JSON.parse(JSON.stringify(Answer)) })
    expect(requests.map((r) => r.outputMode)).toEqual(['native', 'json', 'json'])
  })

  it('a schema-rejected in native mode with maxAttempts 1 fails fast and still remembers the demotion', async () => {
    const { provider, requests } = recording(STRICT, [schemaRejected(), '{"title":"a"}'])
    const gate = createGate({ providers: provider, outputSchema: Answer, outputMode: 'auto', maxAttempts: 1 })
    await expect(gate.run(ask)).rejects.toMatchObject({ name: 'ReliabilityFailFastError' })
    await expect(gate.run(ask)).resolves.toMatchObject({ value: { title: 'a' } })
    expect(requests.map((r) => r.outputMode)).toEqual(['native', 'json'])
  })

  it('a rule of the user’s may lower the mode with adjustRequest', async () => {
    const { provider, requests } = recording(STRICT, ['nope', '{"title":"a"}'])
    const lower: ReliabilityRule = { when: (s) => s.errorKind === 'schema-fail', then: 'retry', kind: 'lower', adjustRequest: () => ({ outputMode: 'prompt' }) }
    await createGate({ providers: provider, outputSchema: Answer, outputMode: 'auto', postDecide: [lower] }).run(ask)
    expect(requests.map((r) => r.outputMode)).toEqual(['native', 'prompt'])
    expect(requests[1]?.nativeSchema).toBeUndefined()
    expect(requests[1]?.system).toContain(JSON.stringify(Answer))
  })

  it('an answer outside the compiled shape is judged as it came (no throw from the mapping)', async () => {
    const { provider } = recording(STRICT, ['[1,2]', '{"title":"a","note":"n"}'])
    const gate = createGate({
      providers: provider,
      outputSchema: Answer,
      outputMode: 'auto',
      postDecide: [{ when: (s) => s.errorKind === 'schema-fail', then: 'retry', kind: 'again' }],
    })
    const result = await gate.run(ask)
    expect(result.value).toEqual({ title: 'a', note: 'n' })
    expect(result.attempts[0]?.status).toBe('schema_error')
  })
})

describe('outputMode native round trip', () => {
  /** Optional fields of every kind strict mode reshapes: a nullable one is boxed, a non-object root is wrapped. */
  const Shape = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      count: { type: 'integer' },
      memo: { type: ['string', 'null'] },
      tags: { type: 'array', items: { type: 'string' } },
      inner: { type: 'object', properties: { flag: { type: 'boolean' }, at: { type: 'string' } }, required: ['flag'] },
    },
    required: ['id'],
  } as const
  const compiled = compileProviderSchema(Shape, 'openai-strict')
  if (!compiled.ok) throw new Error('the test schema must compile')
  const values = fc.record(
    {
      id: fc.string(),
      count: fc.integer(),
      memo: fc.option(fc.string(), { nil: null }),
      tags: fc.array(fc.string(), { maxLength: 3 }),
      inner: fc.record({ flag: fc.boolean(), at: fc.string() }, { requiredKeys: ['flag'] }),
    },
    { requiredKeys: ['id'] },
  )

  it('the value of a native answer is the original value: back(forward(v)) reaches the user, optional fields absent, not null', async () => {
    await fc.assert(
      fc.asyncProperty(values, async (value) => {
        const { provider } = recording(STRICT, [JSON.stringify(compiled.forward(value))])
        const result = await createGate({ providers: provider, outputSchema: Shape, outputMode: 'native' }).run(ask)
        expect(result.value).toEqual(value)
        expect(Object.keys(result.value as object).sort()).toEqual(Object.keys(value).sort())
      }),
      { numRuns: 60 },
    )
  })
})

describe('BoundedMap', () => {
  it('keeps the most recently set entries up to its limit', () => {
    const map = new BoundedMap<string, number>(2)
    map.set('a', 1)
    map.set('b', 2)
    map.set('a', 3)
    map.set('c', 4)
    expect(map.size).toBe(2)
    expect(map.get('b')).toBeUndefined()
    expect(map.get('a')).toBe(3)
    expect(map.get('c')).toBe(4)
  })
})
