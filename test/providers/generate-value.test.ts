import fc from 'fast-check'
import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import type { JsonSchema } from '../../src/model/request.ts'
import { generateValue } from '../../src/providers/simulated/index.ts'
import { refundSchema, richSchema } from './schemas.ts'

const checks = (schema: JsonSchema, value: unknown): boolean => Compile(schema as never).Check(value)

const schemas: Record<string, JsonSchema> = {
  refund: refundSchema,
  rich: richSchema,
  'array of objects at the root': {
    type: 'array',
    items: { type: 'object', properties: { at: { type: 'string', format: 'date' }, who: { type: 'string', format: 'email' } }, required: ['at', 'who'] },
    minItems: 2,
  },
  'nested arrays': { type: 'array', items: { type: 'array', items: { type: 'number', minimum: 5, maximum: 6 }, minItems: 3 }, minItems: 1 },
  'a bare string with a format': { type: 'string', format: 'uuid' },
  'a tuple': { type: 'array', prefixItems: [{ type: 'integer' }, { const: 'x' }], items: false },
  'an allOf of objects': {
    allOf: [
      { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
      { type: 'object', properties: { b: { type: 'boolean' } }, required: ['b'] },
    ],
  },
  'a recursive tree': {
    $defs: {
      Node: {
        type: 'object',
        properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
        required: ['name', 'children'],
      },
    },
    $ref: '#/$defs/Node',
  },
}

describe('generateValue', () => {
  for (const [name, schema] of Object.entries(schemas)) {
    it(`generates a valid value for ${name}`, () => {
      for (let seed = 0; seed < 20; seed++) expect(checks(schema, generateValue(schema, seed))).toBe(true)
    })
  }

  it('always generates a valid value for a rich schema, whatever the seed', () => {
    const check = Compile(richSchema as never)
    fc.assert(
      fc.property(fc.integer(), (seed) => check.Check(generateValue(richSchema, seed))),
      { numRuns: 1000 },
    )
  })

  it.each([
    ['minItems: 1e9', { type: 'array', items: { type: 'string' }, minItems: 1e9 }],
    ['minLength: 1e9', { type: 'string', minLength: 1e9 }],
    [
      'minItems: 1000 three levels deep',
      { type: 'array', minItems: 1000, items: { type: 'array', minItems: 1000, items: { type: 'array', minItems: 1000, items: { type: 'integer' } } } },
    ],
  ] as const)('answers a schema asking for too much (%s) with a short value, instead of running out of memory', (_what, schema) => {
    const value = generateValue(schema as JsonSchema, 1)
    expect(JSON.stringify(value).length).toBeLessThan(2_000_000)
    expect(checks(schema as JsonSchema, value)).toBe(false)
  })

  it('generates the same value for the same seed', () => {
    expect(generateValue(richSchema, 42)).toEqual(generateValue(richSchema, 42))
  })

  it('generates different values for different seeds', () => {
    expect(generateValue(richSchema, 1)).not.toEqual(generateValue(richSchema, 2))
  })

  it('uses an amount and an order id from the prompt hints', () => {
    const value = generateValue(refundSchema, 3, { hints: { amount: 50, orderId: '42' } })
    expect(value).toMatchObject({ amount: 50, orderId: '42' })
  })

  it('ignores an amount hint outside the bounds', () => {
    const schema = { type: 'object', properties: { total: { type: 'integer', maximum: 10 } }, required: ['total'] }
    expect((generateValue(schema, 3, { hints: { amount: 50 } }) as { total: number }).total).toBeLessThanOrEqual(10)
  })
})
