import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { objectErrorWalk } from '../../src/validation/schema/object-errors.ts'
import { enginesNow, withMaxErrors, type Engines } from '../../src/validation/schema/typebox-engines.ts'
import { compileSchema } from '../../src/validation/index.ts'

const engines = enginesNow({ re2: false, meta: false, format: false }) as Engines

/** TypeBox's own, whole walk: what the property-wise walk must give, error for error. */
function typeboxErrors(schema: object, value: unknown, max: number): unknown[] {
  return withMaxErrors(engines, max, () => [...engines.value.Errors({}, schema, value)])
}
function walked(schema: object, value: unknown, max: number): unknown[] | undefined {
  const walk = objectErrorWalk(engines, {}, schema)
  if (walk === undefined) throw new Error('expected a plain object root to be walked')
  return withMaxErrors(engines, max, () => walk(value))
}

// Keys that stress paths (`/`, `~`), prototype names and inherited members.
const KEYS = ['a', 'b', 'amount', 'a/b', 'x~y', 'constructor', 'toString', 'prototype', '', 'ünï']

const leaf: fc.Arbitrary<object> = fc.oneof(
  fc.constant({ type: 'string' }),
  fc.record({ type: fc.constant('string'), minLength: fc.nat(3) }),
  fc.record({ type: fc.constant('number'), minimum: fc.integer({ min: -5, max: 5 }) }),
  fc.constant({ type: 'integer' }),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
  fc.constant({ const: 'refund' }),
  fc.constant({ enum: ['a', 'b', 1] }),
  fc.constant({ anyOf: [{ const: 'refund' }, { const: 'reject' }] }),
  fc.constant({ type: ['string', 'null'] }),
  fc.constant({ type: 'array', items: { type: 'number' }, maxItems: 2 }),
)

const objectSchema = (inner: fc.Arbitrary<object>): fc.Arbitrary<object> =>
  fc
    .record({
      properties: fc.dictionary(fc.constantFrom(...KEYS), inner, { maxKeys: 5 }),
      additionalProperties: fc.constantFrom(undefined, true, false),
      requiredPick: fc.array(fc.constantFrom(...KEYS), { maxLength: 4 }),
      title: fc.constantFrom(undefined, 'T'),
    })
    .map(({ properties, additionalProperties, requiredPick, title }) => {
      const schema: Record<string, unknown> = { type: 'object', properties }
      const required = [...new Set(requiredPick)]
      if (required.length > 0) schema['required'] = required
      if (additionalProperties !== undefined) schema['additionalProperties'] = additionalProperties
      if (title !== undefined) schema['title'] = title
      return schema
    })

const schemaArb = objectSchema(fc.oneof(leaf, objectSchema(leaf)))

// Values as a model's JSON text parses: own `__proto__` keys included.
const valueArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.tuple(fc.constantFrom(...KEYS, '__proto__', 'extra'), fc.jsonValue({ maxDepth: 2 })), { maxLength: 6 }).map(toObject) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
)

function toObject(entries: [string, unknown][]): unknown {
  return JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`)
}

describe('property-wise error walk of a plain object schema', () => {
  it('property: gives TypeBox’s own errors (keywords, paths, params, messages, order), on any value, at any error cap', () => {
    fc.assert(
      fc.property(schemaArb, valueArb, fc.constantFrom(1, 2, 3, 1000), (schema, value, max) => {
        const expected = typeboxErrors(schema, value, max)
        const got = walked(schema, value, max)
        // A non-object value is left to TypeBox's whole walk.
        if (typeof value !== 'object' || value === null || Array.isArray(value)) expect(got).toBeUndefined()
        else expect(got).toEqual(expected)
      }),
      { numRuns: 2000 },
    )
  })

  it('writes nested errors under the property’s escaped path, as TypeBox does', () => {
    const schema = { type: 'object', properties: { 'a/b': { type: 'object', properties: { 'x~y': { type: 'number' } } } }, required: ['a/b'] }
    const value = { 'a/b': { 'x~y': 'no' } }
    const got = walked(schema, value, 1000) as { schemaPath: string; instancePath: string; message: string }[]
    expect(got).toEqual(typeboxErrors(schema, value, 1000))
    expect(got[0]).toMatchObject({ schemaPath: '#/properties/a~1b/properties/x~0y', instancePath: '/a~1b/x~0y', message: 'must be number' })
  })

  it('declines roots it does not reproduce: other keywords, references, non-boolean additionalProperties', () => {
    for (const schema of [
      { type: 'object', properties: {}, minProperties: 1 },
      { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'object', unevaluatedProperties: false } } },
      { type: 'object', properties: {}, additionalProperties: { type: 'string' } },
      { type: 'object', properties: {}, patternProperties: { '^x': { type: 'string' } } },
      { anyOf: [{ type: 'object', properties: {} }] },
      { type: 'object' },
    ]) {
      expect(objectErrorWalk(engines, {}, schema), JSON.stringify(schema)).toBeUndefined()
    }
  })

  it('a compiled TypeBox object schema reports the same issues as before, through the walk', () => {
    const Refund = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]), amount: Type.Number() }, { additionalProperties: false })
    const compiled = compileSchema(Refund)
    const result = compiled.validate({ action: 'refund', amount: 'USD 50', note: 1 })
    expect(result).toMatchObject({ ok: false })
    const issues = (result as unknown as { issues: { code: string; path: string }[] }).issues
    // In the order every schema kind gives (fields to remove last), whatever TypeBox's own order.
    expect(issues.map((i) => [i.code, i.path])).toEqual([
      ['invalid_type', 'amount'],
      ['unknown_property', 'note'],
    ])
  })
})
