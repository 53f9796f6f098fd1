import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { compileSchema } from '../../src/validation/index.ts'

const RealFunction = globalThis.Function

/** Counts `new Function(...)` calls (how TypeBox turns a schema into code) while `run` runs. */
function countGeneratedCode(run: () => void): number {
  let calls = 0
  const spy = new Proxy(RealFunction, {
    construct(target, args) {
      calls++
      return Reflect.construct(target, args)
    },
    apply(target, self, args) {
      calls++
      return Reflect.apply(target, self, args)
    },
  })
  globalThis.Function = spy
  try {
    run()
  } finally {
    globalThis.Function = RealFunction
  }
  return calls
}

afterEach(() => {
  globalThis.Function = RealFunction
})

// biome-ignore lint/suspicious/noTemplateCurlyInString: the key holds a template placeholder on purpose.
const hostileKey = 'a\'"`${globalThis.__pwned = 1}*/\n}'

describe('compileSchema({ evaluate: false })', () => {
  it('generates no code from the schema, where the default does', () => {
    const schema = () => ({ type: 'object', properties: { [hostileKey]: { type: 'string' }, n: { type: 'integer', minimum: 1 } }, required: [hostileKey] })
    const interpreted = countGeneratedCode(() => {
      const s = compileSchema(schema(), { evaluate: false })
      s.validate({ [hostileKey]: 'x', n: 2 })
      s.validate({ n: 0 })
    })
    const generated = countGeneratedCode(() => {
      const s = compileSchema(schema())
      s.validate({ [hostileKey]: 'x', n: 2 })
    })
    expect({ interpreted, generatedSome: generated > 0 }).toEqual({ interpreted: 0, generatedSome: true })
    expect((globalThis as { __pwned?: unknown }).__pwned).toBeUndefined()
  })

  it('reports the same issues as the compiled schema', () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string', minLength: 2 }, days: { type: 'integer', maximum: 7 }, unit: { enum: ['c', 'f'] } },
      required: ['city'],
      additionalProperties: false,
    }
    const compiled = compileSchema(schema)
    const interpreted = compileSchema(structuredClone(schema), { evaluate: false })
    fc.assert(
      fc.property(fc.jsonValue(), fc.record({ city: fc.jsonValue(), days: fc.jsonValue(), unit: fc.jsonValue() }, { requiredKeys: [] }), (any, shaped) => {
        for (const value of [any, shaped]) expect(interpreted.validate(value)).toEqual(compiled.validate(value))
      }),
      { numRuns: 200 },
    )
  })

  it('validates a recursive schema through its $ref', async () => {
    const tree = { $defs: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } } } }, $ref: '#/$defs/node' }
    const s = compileSchema(tree, { evaluate: false })
    expect((await s.validate({ kids: [{ kids: [] }] })).ok).toBe(true)
    expect((await s.validate({ kids: [{ kids: 5 }] })).ok).toBe(false)
  })

  it('compiles the same schema object apart for each mode', () => {
    const schema = { type: 'string' }
    expect(compileSchema(schema, { evaluate: false })).not.toBe(compileSchema(schema))
    expect(compileSchema(schema, { evaluate: false })).toBe(compileSchema(schema, { evaluate: false }))
  })
})
