import { describe, expect, it } from 'vitest'
import { type CompiledProviderSchema, compileProviderSchema } from '../../../src/validation/provider-schema/index.ts'

function compiled(schema: unknown): CompiledProviderSchema {
  const result = compileProviderSchema(schema, 'anthropic')
  if (!result.ok) throw new Error(`refused: ${result.reason}`)
  return result
}

describe('compileProviderSchema (anthropic)', () => {
  it('closes objects and keeps optional properties optional, values unchanged both ways', () => {
    const result = compiled({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a'] })
    expect(result.schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      required: ['a'],
      additionalProperties: false,
    })
    expect(result.forward({ a: 'x' })).toEqual({ a: 'x' })
    expect(result.back({ a: 'x' })).toEqual({ a: 'x' })
  })

  it('moves unsupported keywords into the description and lists them as dropped', () => {
    const result = compiled({ type: 'object', properties: { n: { type: 'integer', description: 'A count.', minimum: 1, maximum: 9 } }, required: ['n'] })
    expect((result.schema['properties'] as Record<string, unknown>)['n']).toEqual({
      type: 'integer',
      description: 'A count.\n\nConstraints: minimum: 1; maximum: 9',
    })
    expect(result.dropped).toEqual([
      { at: '/properties/n', keyword: 'minimum' },
      { at: '/properties/n', keyword: 'maximum' },
    ])
  })

  it('keeps a simple pattern, a documented format and minItems 0 or 1; moves lookarounds, other formats and larger minItems', () => {
    const result = compiled({
      type: 'object',
      properties: {
        simple: { type: 'string', pattern: '^[a-z]+$', format: 'uuid' },
        look: { type: 'string', pattern: '^(?!x)', format: 'color' },
        one: { type: 'array', items: { type: 'string' }, minItems: 1 },
        two: { type: 'array', items: { type: 'string' }, minItems: 2 },
      },
      required: ['simple', 'look', 'one', 'two'],
    })
    const properties = result.schema['properties'] as Record<string, Record<string, unknown>>
    expect(properties['simple']).toEqual({ type: 'string', pattern: '^[a-z]+$', format: 'uuid' })
    expect(properties['look']).toEqual({ type: 'string', description: 'Constraints: pattern: "^(?!x)"; format: "color"' })
    expect(properties['one']).toMatchObject({ minItems: 1 })
    expect(properties['two']).toEqual({ type: 'array', items: { type: 'string' }, description: 'Constraints: minItems: 2' })
  })

  it('refuses more optional properties than Anthropic allows', () => {
    const properties = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${i}`, { type: 'string' }]))
    expect(compileProviderSchema({ type: 'object', properties }, 'anthropic')).toMatchObject({
      ok: false,
      reason: '25 optional properties; Anthropic allows 24',
    })
  })

  it('refuses an enum of objects', () => {
    expect(compileProviderSchema({ enum: [{ a: 1 }, 'x'] }, 'anthropic')).toMatchObject({ ok: false })
  })
})
