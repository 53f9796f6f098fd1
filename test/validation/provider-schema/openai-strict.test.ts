import { describe, expect, it } from 'vitest'
import { compileSchema } from '../../../src/validation/building-blocks.ts'
import { type CompiledProviderSchema, compileProviderSchema } from '../../../src/validation/provider-schema/index.ts'

function compiled(schema: unknown): CompiledProviderSchema {
  const result = compileProviderSchema(schema, 'openai-strict')
  if (!result.ok) throw new Error(`refused: ${result.reason}`)
  return result
}

const accepts = (schema: unknown, value: unknown) => compileSchema(schema as never).validate(value) as { ok: boolean }

describe('compileProviderSchema (openai-strict)', () => {
  it('makes every property required and closes every object', () => {
    const result = compiled({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'object', properties: { c: { type: 'number' } }, required: ['c'] } },
      required: ['a', 'b'],
    })
    expect(result.schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'object', properties: { c: { type: 'number' } }, required: ['c'], additionalProperties: false } },
      required: ['a', 'b'],
      additionalProperties: false,
    })
    expect(result.narrowed).toEqual([
      { at: '', what: 'closed-object' },
      { at: '/properties/b', what: 'closed-object' },
    ])
  })

  it('sends an optional property as nullable, null standing for absent, and maps it back', () => {
    const result = compiled({ type: 'object', properties: { a: { type: 'string' }, n: { type: 'integer' } }, required: ['a'], additionalProperties: false })
    expect(result.schema['properties']).toEqual({ a: { type: 'string' }, n: { type: ['integer', 'null'] } })
    expect(result.schema['required']).toEqual(['a', 'n'])
    expect(result.forward({ a: 'x' })).toEqual({ a: 'x', n: null })
    expect(result.back({ a: 'x', n: null })).toEqual({ a: 'x' })
    expect(result.back({ a: 'x', n: 3 })).toEqual({ a: 'x', n: 3 })
  })

  it('sends a present null the property refuses as a value of a kind the property lacks, so it stays refused after the round trip', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' }, o: { type: 'object', properties: { k: { type: 'string' } } } },
      additionalProperties: false,
    }
    const result = compiled(schema)
    expect(result.forward({ n: null, o: null })).toEqual({ n: [null], o: [null] })
    expect(accepts(result.schema, result.forward({ n: null })).ok).toBe(false)
    expect(result.back(result.forward({ n: null, o: null }))).toEqual({ n: null, o: null })
    expect(accepts(schema, result.back(result.forward({ n: null }))).ok).toBe(false)
  })

  it('carries an optional property that already accepts null as { value }, so absent and null stay apart', () => {
    const schema = { type: 'object', properties: { n: { type: ['string', 'null'] } }, additionalProperties: false }
    const result = compiled(schema)
    expect(result.schema['properties']).toEqual({
      n: {
        anyOf: [
          { type: 'null' },
          { type: 'object', properties: { value: { anyOf: [{ type: 'string' }, { type: 'null' }] } }, required: ['value'], additionalProperties: false },
        ],
      },
    })
    for (const value of [{}, { n: null }, { n: 'x' }]) {
      expect(accepts(result.schema, result.forward(value)).ok).toBe(true)
      expect(result.back(result.forward(value))).toEqual(value)
    }
    expect(result.forward({})).toEqual({ n: null })
    expect(result.forward({ n: null })).toEqual({ n: { value: null } })
  })

  it('makes an optional object or array property nullable with an anyOf member, a scalar one with a type list', () => {
    const result = compiled({
      type: 'object',
      properties: { o: { type: 'object', properties: { k: { type: 'string' } }, required: ['k'] }, l: { type: 'array', items: { type: 'string' } } },
    })
    expect(result.schema['properties']).toEqual({
      o: { anyOf: [{ type: 'object', properties: { k: { type: 'string' } }, required: ['k'], additionalProperties: false }, { type: 'null' }] },
      l: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
    })
  })

  it('adds null to an enum for an optional enum property', () => {
    const result = compiled({ type: 'object', properties: { e: { enum: ['a', 'b'] } }, additionalProperties: false })
    expect(result.schema['properties']).toEqual({ e: { enum: ['a', 'b', null] } })
  })

  it('carries a non-object root as { value }', () => {
    const result = compiled({ type: 'array', items: { type: 'integer' } })
    expect(result.schema).toEqual({
      type: 'object',
      properties: { value: { type: 'array', items: { type: 'integer' } } },
      required: ['value'],
      additionalProperties: false,
    })
    expect(result.forward([1, 2])).toEqual({ value: [1, 2] })
    expect(result.back({ value: [1, 2] })).toEqual([1, 2])
  })

  it('keeps the documented keywords and lists the others as dropped', () => {
    const result = compiled({
      type: 'object',
      properties: {
        s: { type: 'string', pattern: '^a', format: 'email', minLength: 2 },
        f: { type: 'string', format: 'color' },
        n: { type: 'number', minimum: 0, exclusiveMaximum: 9, multipleOf: 0.5 },
        l: { type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true },
      },
      required: ['s', 'f', 'n', 'l'],
      additionalProperties: false,
      not: { required: ['x'] },
    })
    const properties = result.schema['properties'] as Record<string, unknown>
    expect(properties['s']).toEqual({ type: 'string', pattern: '^a', format: 'email' })
    expect(properties['f']).toEqual({ type: 'string' })
    expect(properties['n']).toEqual({ type: 'number', minimum: 0, exclusiveMaximum: 9, multipleOf: 0.5 })
    expect(properties['l']).toEqual({ type: 'array', items: { type: 'string' }, minItems: 1 })
    expect(result.dropped).toEqual(
      expect.arrayContaining([
        { at: '', keyword: 'not' },
        { at: '/properties/s', keyword: 'minLength' },
        { at: '/properties/f', keyword: 'format' },
        { at: '/properties/l', keyword: 'uniqueItems' },
      ]),
    )
  })

  it('dispatches a union by JSON type when one member maps absent properties', () => {
    const result = compiled({
      type: 'object',
      properties: { u: { anyOf: [{ type: 'string' }, { type: 'object', properties: { k: { type: 'string' } }, additionalProperties: false }] } },
      required: ['u'],
      additionalProperties: false,
    })
    for (const value of [{ u: 'x' }, { u: {} }, { u: { k: 'y' } }]) {
      expect(accepts(result.schema, result.forward(value)).ok).toBe(true)
      expect(result.back(result.forward(value))).toEqual(value)
    }
  })

  it('refuses a union whose object members would map absent properties ambiguously', () => {
    const member = (name: string) => ({ type: 'object', properties: { [name]: { type: 'string' } }, additionalProperties: false })
    const result = compileProviderSchema({ type: 'object', properties: { u: { anyOf: [member('a'), member('b')] } }, required: ['u'] }, 'openai-strict')
    expect(result).toMatchObject({ ok: false, at: '/properties/u' })
  })

  it('tells object members apart by a required enum property they do not share, both ways', () => {
    const member = (kind: string, field: string) => ({
      type: 'object',
      properties: { kind: { const: kind }, [field]: { type: 'string' }, note: { type: 'string' } },
      required: ['kind'],
      additionalProperties: false,
    })
    const schema = { type: 'object', properties: { u: { anyOf: [member('a', 'x'), member('b', 'y')] } }, required: ['u'], additionalProperties: false }
    const result = compiled(schema)
    for (const value of [{ u: { kind: 'a' } }, { u: { kind: 'a', x: '1' } }, { u: { kind: 'b', y: '2', note: 'n' } }]) {
      expect(accepts(result.schema, result.forward(value)).ok).toBe(true)
      expect(result.back(result.forward(value))).toEqual(value)
    }
    expect(result.forward({ u: { kind: 'b' } })).toEqual({ u: { kind: 'b', y: null, note: null } })
  })

  it('infers no type from a format alone: a property with only a format accepts any value, so it is not narrowed to a string', () => {
    // MaskBench Github_easy---o63378: { format: 'positiveInteger' } holding the number 1.
    const schema = { type: 'object', properties: { number: { format: 'positiveInteger' } } }
    expect(accepts(schema, { number: 1 }).ok).toBe(true)
    for (const target of ['openai-strict', 'anthropic', 'gemini'] as const) {
      const result = compileProviderSchema(schema, target)
      expect(result).toMatchObject({ ok: false, at: '/properties/number', reason: expect.stringContaining('no type') })
    }
    // A string keyword beside it still says string.
    expect(compiled({ type: 'object', properties: { s: { format: 'email', minLength: 3 } } }).schema).toMatchObject({
      properties: { s: { type: ['string', 'null'] } },
    })
  })

  it('refuses objects nested deeper than OpenAI allows', () => {
    let schema: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 11; i++) schema = { type: 'object', properties: { x: schema }, required: ['x'], additionalProperties: false }
    expect(compileProviderSchema(schema, 'openai-strict')).toMatchObject({ ok: false, reason: expect.stringContaining('nested 11 deep') })
  })

  it('maps a property named __proto__ as an own property', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"additionalProperties":false}')
    const result = compiled(schema)
    const forward = result.forward(JSON.parse('{}')) as Record<string, unknown>
    expect(Object.hasOwn(forward, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(forward)).toBe(Object.prototype)
    expect(Object.keys(result.back(forward) as object)).toEqual([])
  })

  it('returns values of another shape unchanged instead of throwing', () => {
    const result = compiled({
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'array', items: { type: 'object', properties: { c: { type: 'string' } }, additionalProperties: false } },
      },
    })
    for (const hostile of [null, 1, 'x', [], { b: 'not an array' }, { b: [1, null] }, { a: { value: 1 } }]) {
      expect(() => result.back(result.forward(hostile))).not.toThrow()
    }
    expect(result.back('x')).toBe('x')
  })
})
