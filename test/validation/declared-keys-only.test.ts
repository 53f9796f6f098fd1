import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, isReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { compileSchema } from '../../src/validation/index.ts'
import { findForbiddenKey } from '../../src/validation/json/forbidden-keys.ts'
import { declaredKeysOnly } from '../../src/validation/schema/declared-keys-only.ts'
import { ask } from '../support/schemas.ts'

const closedObject = (properties: Record<string, unknown>) => ({ type: 'object', properties, additionalProperties: false })

describe('declaredKeysOnly: schemas that refuse every undeclared key, at every depth', () => {
  it.each([
    ['a closed object of scalars', closedObject({ a: { type: 'number' }, b: { type: 'string', minLength: 1 } })],
    ['nested closed objects and arrays of them', closedObject({ list: { type: 'array', items: closedObject({ x: { type: 'integer' } }) } })],
    ['a union of literals', { anyOf: [{ const: 'a' }, { const: 'b' }] }],
    ['an enum of scalars', { enum: ['a', 1, null] }],
    ['scalars only', { type: ['string', 'null'] }],
    ['a union of closed objects', { oneOf: [closedObject({ a: { type: 'number' } }), closedObject({ b: { type: 'number' } })] }],
    ['false', false],
    [
      'TypeBox Object with additionalProperties: false',
      Type.Object({ a: Type.Optional(Type.Number()), b: Type.Union([Type.Literal('x'), Type.Literal('y')]) }, { additionalProperties: false }),
    ],
  ])('%s: closed', (_name, schema) => {
    expect(declaredKeysOnly(schema)).toBe(true)
  })

  it.each([
    ['an object open to other keys', { type: 'object', properties: { a: { type: 'number' } } }],
    ['additionalProperties as a schema', { type: 'object', properties: {}, additionalProperties: { type: 'number' } }],
    ['a declared forbidden key', closedObject({ constructor: { type: 'number' } })],
    ['a nested open object', closedObject({ inner: { type: 'object' } })],
    ['an array without items', { type: 'array' }],
    ['patternProperties', { type: 'object', patternProperties: { '^a': { type: 'number' } }, additionalProperties: false }],
    ['a $ref', { $ref: '#/$defs/x', $defs: { x: { type: 'number' } } }],
    ['allOf', { allOf: [closedObject({})] }],
    ['an object const', { const: { a: 1 } }],
    ['no type at all', {}],
    ['true', true],
    ['a union with one open branch', { anyOf: [{ type: 'number' }, { type: 'object' }] }],
    ['TypeBox Object without additionalProperties', Type.Object({ a: Type.Number() })],
  ])('%s: open', (_name, schema) => {
    expect(declaredKeysOnly(schema)).toBe(false)
  })

  it('property: a closed schema’s compiled test refuses every value that holds a forbidden key', () => {
    const leaf = fc.constantFrom<object>({ type: 'number' }, { type: 'string' }, { enum: ['a', 'b'] }, { type: ['boolean', 'null'] })
    const schemaArb = fc.letrec<{ node: object }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.dictionary(fc.constantFrom('a', 'b', 'c', 'constructor'), tie('node'), { maxKeys: 3 }).map(closedObject),
        tie('node').map((items) => ({ type: 'array', items })),
      ),
    })).node
    const key = fc.constantFrom('a', 'b', 'c', '__proto__', 'constructor', 'prototype', '\\u005f_proto__')
    const json = fc.letrec<{ v: string }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('1', '"a"', 'null', 'true'),
        fc.array(fc.tuple(key, tie('v')), { maxLength: 4 }).map((entries) => `{${entries.map(([k, v]) => `"${k}":${v}`).join(',')}}`),
        fc.array(tie('v'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
      ),
    })).v
    fc.assert(
      fc.property(schemaArb, json, (schema, text) => {
        fc.pre(declaredKeysOnly(schema))
        const compiled = compileSchema(schema as never)
        expect(compiled.declaredKeysOnly).toBe(true)
        const value: unknown = JSON.parse(text)
        if (findForbiddenKey(value) !== undefined) expect(compiled.test?.(value)).toBe(false)
      }),
      { numRuns: 1500 },
    )
  })

  it('a gate with a closed schema reports a forbidden key as forbidden_key, as with an open one', async () => {
    const closed = Type.Object({ action: Type.String() }, { additionalProperties: false })
    const open = Type.Object({ action: Type.String() })
    expect(compileSchema(closed).declaredKeysOnly).toBe(true)
    for (const answer of ['{"action": "refund", "__proto__": {"admin": true}}', '{"action": "refund", "constructor": {"prototype": 1}}']) {
      for (const schema of [closed, open]) {
        const gate = createGate({ providers: scripted([answer]), outputSchema: schema as typeof open })
        const error = await gate.run(ask('refund')).catch((e: unknown) => e)
        expect(isReliabilityFailFastError(error)).toBe(true)
        const issues = (error as { attempts: { issues: { code: string }[] }[] }).attempts[0]?.issues.map((i) => i.code)
        expect(issues, answer).toContain('forbidden_key')
      }
    }
  })
})
