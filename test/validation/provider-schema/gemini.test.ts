import { describe, expect, it } from 'vitest'
import { type CompiledProviderSchema, compileProviderSchema } from '../../../src/validation/provider-schema/index.ts'

function compiled(schema: unknown): CompiledProviderSchema {
  const result = compileProviderSchema(schema, 'gemini')
  if (!result.ok) throw new Error(`refused: ${result.reason}`)
  return result
}

describe('compileProviderSchema (gemini)', () => {
  it('writes the OpenAPI-3 responseSchema: upper-case types, nullable, propertyOrdering, no additionalProperties', () => {
    const result = compiled({
      type: 'object',
      properties: {
        b: { type: ['string', 'null'], minLength: 1 },
        a: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
        l: { type: 'array', items: { type: 'boolean' }, maxItems: 3 },
      },
      required: ['a'],
      additionalProperties: false,
    })
    expect(result.schema).toEqual({
      type: 'OBJECT',
      properties: {
        b: { type: 'STRING', minLength: 1, nullable: true },
        a: { type: 'INTEGER', minimum: 0, nullable: true },
        l: { type: 'ARRAY', items: { type: 'BOOLEAN' }, maxItems: 3 },
      },
      required: ['a'],
      propertyOrdering: ['b', 'a', 'l'],
    })
  })

  it('lists a string enum and leaves other enums to the gate with their type', () => {
    expect(compiled({ enum: ['x', 'y', null] }).schema).toEqual({ type: 'STRING', format: 'enum', enum: ['x', 'y'], nullable: true })
    const numbers = compiled({ enum: [1, 2, 3] })
    expect(numbers.schema).toEqual({ type: 'INTEGER' })
    expect(numbers.dropped).toEqual([{ at: '', keyword: 'enum' }])
  })

  it('drops the keywords responseSchema lacks', () => {
    const result = compiled({ type: 'number', exclusiveMinimum: 0, multipleOf: 2 })
    expect(result.schema).toEqual({ type: 'NUMBER' })
    expect(result.dropped.map((d) => d.keyword)).toEqual(['exclusiveMinimum', 'multipleOf'])
  })

  it('refuses a null-only schema and an object without properties', () => {
    expect(compileProviderSchema({ type: 'null' }, 'gemini')).toMatchObject({ ok: false })
    expect(compileProviderSchema({ type: 'object', additionalProperties: false }, 'gemini')).toMatchObject({ ok: false })
  })
})
