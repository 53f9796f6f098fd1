import { describe, expect, it } from 'vitest'
import { compileProviderSchema, PROVIDER_TARGETS } from '../../../src/validation/provider-schema/index.ts'

describe('compileProviderSchema (every target)', () => {
  for (const target of PROVIDER_TARGETS) {
    describe(target, () => {
      it('refuses a map (object-valued additionalProperties) instead of closing it', () => {
        const schema = { type: 'object', properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['tags'] }
        expect(compileProviderSchema(schema, target)).toEqual({ ok: false, target, at: '/properties/tags', reason: expect.stringContaining('a map') })
      })

      it('refuses a map (patternProperties), a free-form object and an any-value property', () => {
        expect(compileProviderSchema({ type: 'object', patternProperties: { '^x': { type: 'string' } } }, target)).toMatchObject({
          ok: false,
          reason: expect.stringContaining('a map'),
        })
        expect(compileProviderSchema({ type: 'object' }, target)).toMatchObject({ ok: false, reason: expect.stringContaining('free-form') })
        expect(compileProviderSchema({ type: 'object', properties: { x: {} }, required: ['x'] }, target)).toMatchObject({ ok: false, at: '/properties/x' })
        expect(compileProviderSchema({ type: 'array' }, target)).toMatchObject({ ok: false })
      })

      it('refuses unevaluatedProperties beside if/then/else or dependentSchemas instead of closing the object to {}', () => {
        const conditional = {
          type: 'object',
          if: { properties: { foo: { const: 'then' } }, required: ['foo'] },
          then: { properties: { bar: { type: 'string' } }, required: ['bar'] },
          else: { properties: { baz: { type: 'string' } }, required: ['baz'] },
          unevaluatedProperties: false,
        }
        const dependent = {
          type: 'object',
          properties: { foo: { type: 'string' } },
          dependentSchemas: { foo: { properties: { bar: { const: 'bar' } }, required: ['bar'] } },
          unevaluatedProperties: false,
        }
        for (const schema of [conditional, dependent])
          expect(compileProviderSchema(schema, target)).toMatchObject({ ok: false, at: '', reason: expect.stringContaining('unevaluatedProperties') })
        // additionalProperties ignores what those keywords evaluate: the object closes as before.
        expect(compileProviderSchema({ ...dependent, unevaluatedProperties: undefined, additionalProperties: false }, target)).toMatchObject({ ok: true })
      })

      it('refuses a recursive schema ($ref cycle)', () => {
        const tree = { $defs: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } } } }, $ref: '#/$defs/node' }
        expect(compileProviderSchema(tree, target)).toMatchObject({ ok: false, reason: expect.stringContaining('recursive') })
        expect(compileProviderSchema({ type: 'object', properties: { self: { $ref: '#' } } }, target)).toMatchObject({
          ok: false,
          reason: expect.stringContaining('recursive'),
        })
      })

      it('inlines a $ref used twice (not a cycle) and merges allOf', () => {
        const schema = {
          definitions: { name: { type: 'string', minLength: 1 } },
          type: 'object',
          properties: { first: { $ref: '#/definitions/name' }, last: { $ref: '#/definitions/name', description: 'Family name.' } },
          allOf: [{ required: ['first'] }, { properties: { age: { type: 'integer' } }, required: ['age'] }],
        }
        const result = compileProviderSchema(schema, target)
        expect(result.ok).toBe(true)
        if (!result.ok) return
        expect(Object.keys(result.schema['properties'] as object)).toEqual(['first', 'last', 'age'])
        expect(result.back(result.forward({ first: 'a', age: 3 }))).toEqual({ first: 'a', age: 3 })
      })

      it('refuses allOf members that disagree and assertions beside a $ref', () => {
        expect(
          compileProviderSchema(
            {
              allOf: [
                { type: 'string', maxLength: 3 },
                { type: 'string', maxLength: 4 },
              ],
            },
            target,
          ),
        ).toMatchObject({ ok: false })
        const beside = { $defs: { s: { type: 'string' } }, type: 'object', properties: { x: { $ref: '#/$defs/s', maxLength: 2 } }, required: ['x'] }
        expect(compileProviderSchema(beside, target)).toMatchObject({ ok: false, reason: expect.stringContaining('beside $ref') })
      })

      it('turns oneOf into anyOf and lists the lost exclusivity', () => {
        const result = compileProviderSchema(
          { type: 'object', properties: { v: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, required: ['v'] },
          target,
        )
        expect(result).toMatchObject({ ok: true, dropped: [{ at: '/properties/v', keyword: 'oneOf' }] })
      })

      it('refuses hostile schemas with a typed verdict, never a crash', () => {
        let deep: Record<string, unknown> = { type: 'string' }
        for (let i = 0; i < 200; i++) deep = { type: 'array', items: deep }
        expect(compileProviderSchema(deep, target)).toMatchObject({ ok: false })
        for (const hostile of [
          false,
          { type: 'bogus' },
          { type: [] },
          { $ref: 'http://x/y' },
          { $ref: 42 },
          { properties: 3 },
          { required: 'a', properties: {} },
          { enum: 'x' },
        ])
          expect(compileProviderSchema(hostile, target)).toMatchObject({ ok: false })
      })
    })
  }

  it('throws a TypeError for an unknown target or a non-schema', () => {
    expect(() => compileProviderSchema({ type: 'string' }, 'openai' as never)).toThrow(TypeError)
    expect(() => compileProviderSchema({ type: 'string' }, 'openai' as never)).toThrow('"openai-strict", "anthropic", "gemini"')
    expect(() => compileProviderSchema(null, 'gemini')).toThrow(TypeError)
    expect(() => compileProviderSchema('x', 'gemini')).toThrow(TypeError)
  })
})
