import fc from 'fast-check'
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { geminiToJsonSchema } from '../../../bench/eval/gemini-json-schema.ts'
import { compileSchema } from '../../../src/validation/building-blocks.ts'
import { compileProviderSchema, PROVIDER_TARGETS } from '../../../src/validation/provider-schema/index.ts'

/** A schema of the compilable language together with an arbitrary of the values it accepts. */
interface Shape {
  readonly schema: Record<string, unknown>
  readonly values: fc.Arbitrary<unknown>
}

const name = fc.constantFrom('a', 'b', 'value', 'n', '__proto__', 'constructor', 'x y')

const leaf: fc.Arbitrary<Shape> = fc.oneof(
  fc.constant({ schema: { type: 'string', minLength: 1 }, values: fc.string({ minLength: 1, maxLength: 4 }) }),
  fc.constant({ schema: { type: 'integer', minimum: 0 }, values: fc.nat(99) }),
  fc.constant({ schema: { type: 'number' }, values: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  fc.constant({ schema: { type: 'boolean' }, values: fc.boolean() }),
  fc.constant({ schema: { type: ['string', 'null'] }, values: fc.option(fc.string({ maxLength: 3 }), { nil: null }) }),
  fc.constant({ schema: { enum: ['on', 'off', 1, null] }, values: fc.constantFrom<unknown>('on', 'off', 1, null) }),
  fc.constant({ schema: { const: 'k' }, values: fc.constant('k') }),
)

const shape: fc.Arbitrary<Shape> = fc.letrec<{ node: Shape }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('node').map((item) => ({ schema: { type: 'array', items: item.schema }, values: fc.array(item.values, { maxLength: 3 }) })),
    fc.tuple(tie('node'), fc.constant({ schema: { type: 'null' }, values: fc.constant(null) })).map(([a, b]) => ({
      schema: { anyOf: [a.schema, b.schema] },
      values: fc.oneof(a.values, b.values),
    })),
    fc.uniqueArray(fc.tuple(name, tie('node'), fc.boolean()), { selector: ([n]) => n, minLength: 1, maxLength: 4 }).map((members) => {
      const properties = Object.fromEntries(members.map(([n, s]) => [n, s.schema]))
      const required = members.filter(([, , r]) => r).map(([n]) => n)
      const values = fc
        .tuple(
          ...members.map(([n, s, r]) =>
            r
              ? s.values.map((v) => [n, v] as const)
              : fc.option(
                  s.values.map((v) => [n, v] as const),
                  { nil: undefined },
                ),
          ),
        )
        .map((entries) => Object.fromEntries(entries.filter((e) => e !== undefined)))
      return { schema: { type: 'object', properties, required, additionalProperties: false }, values }
    }),
  ),
})).node

const withValue = shape.chain((s) => fc.tuple(fc.constant(s.schema), s.values))

describe('compileProviderSchema round trip', () => {
  for (const target of PROVIDER_TARGETS) {
    it(`${target}: every accepted value maps forward to one the compiled schema accepts and back to itself`, () => {
      fc.assert(
        fc.property(withValue, ([schema, value]) => {
          const original = compileSchema(schema as never)
          expect((original.validate(value) as { ok: boolean }).ok).toBe(true)
          const result = compileProviderSchema(schema, target)
          if (!result.ok) return
          const sent = target === 'gemini' ? geminiToJsonSchema(result.schema) : result.schema
          const forward = result.forward(value)
          expect((compileSchema(sent as never).validate(forward) as { ok: boolean }).ok).toBe(true)
          expect(isDeepStrictEqual(result.back(forward), value)).toBe(true)
        }),
        { numRuns: 150 },
      )
    })

    it(`${target}: no value the original refuses is accepted after the round trip`, () => {
      fc.assert(
        fc.property(shape, fc.jsonValue({ maxDepth: 3 }), (s, value) => {
          const result = compileProviderSchema(s.schema, target)
          if (!result.ok) return
          const original = compileSchema(s.schema as never)
          if ((original.validate(value) as { ok: boolean }).ok) return
          expect((original.validate(result.back(result.forward(value))) as { ok: boolean }).ok).toBe(false)
        }),
        { numRuns: 150 },
      )
    })
  }

  it('openai-strict compiles every generated schema within its depth limit (none is a map, free-form or recursive)', () => {
    fc.assert(
      fc.property(shape, (s) => {
        const result = compileProviderSchema({ type: 'object', properties: { root: s.schema }, required: ['root'] }, 'openai-strict')
        if (!result.ok) expect(result.reason).toContain('nested')
      }),
      { numRuns: 100 },
    )
  })
})
