import { Type } from 'typebox'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, createGate, isReliabilityFailFastError, tool } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { checkForbiddenKeys, compileSchema, validateFinalAnswer, validateToolArgs } from '../../src/validation/index.ts'
import { findForbiddenKey } from '../../src/validation/json/forbidden-keys.ts'
import { IncrementalValidator } from '../../src/validation/stream/index.ts'
import { ask } from '../support/schemas.ts'

const Anything = compileSchema({})
// Parsed the way a provider SDK parses tool arguments: `__proto__` becomes an own property.
const parsed = (text: string): unknown => JSON.parse(text)
const HOSTILE = [
  '{"__proto__": {"polluted": true}}',
  '{"a": {"constructor": {"prototype": {"polluted": true}}}}',
  '{"list": [{"constructor": {"prototype": {"polluted": true}}}]}',
]

afterEach(() => {
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
})

describe('Prototype keys', () => {
  it('finds a prototype key under 100,000 levels of nesting, and refuses nesting past 256 levels in a parsed value', () => {
    const deep = (depth: number, leaf: string): unknown => JSON.parse(`${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`)
    expect(checkForbiddenKeys(deep(100_000, '{"__proto__":{"polluted":true}}'))).toMatchObject({
      code: 'other',
      message: expect.stringContaining('nesting deeper than 256 levels'),
    })
    expect(findForbiddenKey(deep(100_000, '{"__proto__":{"polluted":true}}'))?.segments).toHaveLength(100_001)
    expect(checkForbiddenKeys(deep(255, '{"b":1}'))).toBeUndefined()
    expect(checkForbiddenKeys(deep(256, '{"b":1}'))).toMatchObject({ code: 'other', path: expect.stringMatching(/^a\.a/) })
  })

  it('refuses them in final answers with a forbidden_key issue', () => {
    for (const text of HOSTILE)
      expect(validateFinalAnswer(text, Anything, { repair: true })).toMatchObject({ ok: false, failure: { issues: [{ code: 'forbidden_key' }] } })
  })

  it('refuses them in tool arguments a provider SDK already parsed, as in raw string arguments', () => {
    for (const text of HOSTILE) {
      expect(validateToolArgs(parsed(text), Anything)).toMatchObject({ ok: false, failure: { stage: 'tool-args', issues: [{ code: 'forbidden_key' }] } })
      expect(validateToolArgs(text, Anything)).toMatchObject({ ok: false, failure: { issues: [{ code: 'forbidden_key' }] } })
    }
  })

  it('accepts constructor and prototype keys that hold plain data', () => {
    expect(validateToolArgs(parsed('{"constructor": "Ferrari"}'), Anything)).toMatchObject({ ok: true, value: { constructor: 'Ferrari' } })
    expect(validateToolArgs('{"prototype": "v2"}', Anything)).toMatchObject({ ok: true, value: { prototype: 'v2' } })
    expect(validateFinalAnswer('{"team": {"constructor": "Ferrari", "points": 1}}', Anything)).toMatchObject({ ok: true })
    expect(validateFinalAnswer('{"constructor": {"name": "Ferrari"}}', Anything)).toMatchObject({ ok: true })
    expect(validateFinalAnswer('{"constructor": [{"prototype": 1}]}', Anything)).toMatchObject({ ok: true })
  })

  it('refuses a constructor key holding a prototype, wherever it is', () => {
    expect(validateToolArgs(parsed('{"constructor": {"prototype": 1}}'), Anything)).toMatchObject({
      ok: false,
      failure: { issues: [{ code: 'forbidden_key', path: 'constructor' }] },
    })
    expect(validateFinalAnswer('{"model": [{"constructor": {"prototype": {}}}]}', Anything)).toMatchObject({
      ok: false,
      failure: { issues: [{ code: 'forbidden_key', path: 'model[0].constructor' }] },
    })
    expect(validateFinalAnswer('{"constructor": {"\\u0070rototype": {}}}', Anything)).toMatchObject({
      ok: false,
      failure: { issues: [{ code: 'forbidden_key' }] },
    })
  })

  it('finds a __proto__ key written with unicode escapes', () => {
    expect(validateFinalAnswer('{"\\u005f_proto__": {"polluted": true}}', Anything)).toMatchObject({
      ok: false,
      failure: { issues: [{ code: 'forbidden_key', path: '__proto__' }] },
    })
  })

  it('offers the check to code that parses JSON itself', () => {
    expect(checkForbiddenKeys(parsed('{"x": [{"__proto__": 1}]}'))).toMatchObject({ code: 'forbidden_key', path: 'x[0].__proto__' })
    expect(checkForbiddenKeys({ ok: true })).toBeUndefined()
  })

  it('never runs a tool with such arguments, nor hands them to user code as an object', async () => {
    const execute = vi.fn(async () => 'done')
    const lookup = tool({ name: 'lookup', description: 'Look up', input: Type.Object({ id: Type.String() }), execute })
    const provider = scripted([{ content: '', toolCalls: [{ id: 'c1', name: 'lookup', args: parsed('{"id": "1", "__proto__": {"admin": true}}') }] }, 'Done.'])
    const agent = Agent.create({ provider, model: 'm', maxToolRetries: 0 }).tools([lookup]).build()
    const started: unknown[] = []
    agent.on('tool_start', (e) => started.push(e.args))
    const result = await agent.runDetailed('go')
    expect(execute).not.toHaveBeenCalled()
    expect(result.functionsCalled[0]).toMatchObject({ status: 'invalid-args', args: '{"id":"1","__proto__":{"admin":true}}' })
    // A listener of tool_start is user code too: it reads the arguments as functionsCalled holds them.
    expect(started).toEqual(['{"id":"1","__proto__":{"admin":true}}'])
  })

  it.each(HOSTILE)(
    'hands tool arguments %s from a provider that parsed them itself to attempt_end listeners and the gate result as JSON text',
    async (text) => {
      const gate = createGate({
        providers: scripted([
          {
            content: '',
            toolCalls: [
              { id: 'c1', name: 'lookup', args: parsed(text) },
              { id: 'c2', name: 'lookup', args: { id: '2' } },
            ],
          },
        ]),
      })
      const seen: unknown[] = []
      gate.on('attempt_end', (e) => seen.push(e.response?.toolCalls.map((c) => c.args)))
      const result = await gate.run(ask('look it up'))
      const expected = [JSON.stringify(parsed(text)), { id: '2' }]
      expect(result.response.toolCalls.map((c) => c.args)).toEqual(expected)
      expect(seen).toEqual([expected])
    },
  )

  it("refuses them in the gate fallback's answer", async () => {
    const gate = createGate({
      providers: scripted(['not json']),
      outputSchema: Type.Object({}),
      postDecide: [{ when: () => true, then: 'fallback', kind: 'fallback' }],
      fallback: () => HOSTILE[0] as string,
    })
    const error = await gate.run(ask('x')).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isReliabilityFailFastError(error) && error.kind).toBe('fallback-invalid')
  })

  it.each(HOSTILE)("hands tool arguments %s in the gate fallback's tool-call answer to the gate result as JSON text, as a provider's", async (text) => {
    const gate = createGate({
      providers: scripted([new Error('down')]),
      postDecide: [{ when: (s) => s.errorKind !== 'ok', then: 'fallback', kind: 'fallback' }],
      fallback: () => ({
        content: '',
        toolCalls: [
          { id: 'c1', name: 'lookup', args: parsed(text) },
          { id: 'c2', name: 'lookup', args: { id: '2' } },
        ],
        usage: { inputTokens: 1, outputTokens: 1 },
        stopReason: 'tool_use',
      }),
    })
    const result = await gate.run(ask('look it up'))
    expect(result.response.toolCalls.map((c) => c.args)).toEqual([JSON.stringify(parsed(text)), { id: '2' }])
  })

  it("refuses them in the agent's output fallback value, falling back to the canned answer", async () => {
    const Out = Type.Object({ action: Type.String() })
    const agent = Agent.create({ provider: scripted(['nope']), model: 'm' })
      .outputSchema(Out)
      .outputFallback({ fallback: () => parsed('{"action": "refund", "__proto__": {"admin": true}}'), canned: { action: 'reject' } })
      .build()
    expect(await agent.runDetailed('go')).toMatchObject({ value: { action: 'reject' }, outputFallback: 'canned' })
  })

  it('stops a streamed answer at a forbidden key and keeps it out of the partial value', () => {
    for (const [text, path] of [
      ['{"a": 1, "__proto__": {"polluted": true}}', '__proto__'],
      ['{"a": {"constructor": {"prototype": {}}}}', 'a.constructor'],
      ['{"list": [{"constructor": {"prototype": 1}}]}', 'list[0].constructor'],
    ] as const) {
      const v = new IncrementalValidator({})
      for (const ch of text) if (v.push(ch) !== undefined) break
      expect(v.violation).toMatchObject({ code: 'forbidden_key', path })
      expect(JSON.stringify(v.partial)).not.toMatch(/__proto__|prototype/)
    }
    const plain = new IncrementalValidator({})
    plain.push('{"constructor": "Ford", "prototype": [1], "c": {"constructor": {"name": "x"}}}')
    expect(plain.violation).toBeUndefined()
    const fine = new IncrementalValidator({})
    fine.push('{"constructorName": "Ford"}')
    expect(fine.violation).toBeUndefined()
  })
})
