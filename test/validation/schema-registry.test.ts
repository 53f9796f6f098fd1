import { Type } from 'typebox'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createGate } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { compileSchema, isCompiledSchema } from '../../src/validation/index.ts'
import { ask } from '../support/schemas.ts'

const Money = {
  $id: 'https://example.com/schemas/money.json',
  type: 'object',
  properties: { amount: { $ref: 'number.json' }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
  required: ['amount', 'currency'],
}
const Num = { $id: 'https://example.com/schemas/number.json', type: 'number', minimum: 0 }
const Order = { type: 'object', properties: { total: { $ref: 'https://example.com/schemas/money.json' } }, required: ['total'] }

describe('Schema registry', () => {
  it('resolves $refs to schemas registered by their $id, and their own relative refs', () => {
    const schema = compileSchema(Order, { registry: [Money, Num] })
    expect(schema.validate({ total: { amount: 5, currency: 'EUR' } })).toMatchObject({ ok: true })
    expect(schema.validate({ total: { amount: -1, currency: 'EUR' } })).toMatchObject({ ok: false, issues: [{ path: 'total.amount' }] })
    expect(schema.validate({ total: { amount: 1, currency: 'euro' } })).toMatchObject({ ok: false, issues: [{ path: 'total.currency' }] })
  })

  it('resolves schemas registered by the URI they are referenced with', () => {
    const schema = compileSchema({ $ref: 'http://localhost:1234/integer.json' }, { registry: { 'http://localhost:1234/integer.json': { type: 'integer' } } })
    expect(schema.validate(3)).toMatchObject({ ok: true })
    expect(schema.validate('3')).toMatchObject({ ok: false })
  })

  it('resolves the well-known meta-schemas without a registry', () => {
    const schema = compileSchema({ $ref: 'https://json-schema.org/draft/2020-12/schema' })
    expect(schema.validate({ type: 'string', minLength: 2 })).toMatchObject({ ok: true })
    expect(schema.validate({ type: 12 })).toMatchObject({ ok: false })
  })

  it('needs an absolute $id on every schema of a registry list', () => {
    expect(() => compileSchema(Order, { registry: [{ type: 'number' }] })).toThrow(/absolute \$id/)
  })
})

describe('Format mode', () => {
  it('asserts formats by default, for model output', () => {
    expect(compileSchema({ type: 'string', format: 'date-time' }).validate('tomorrow')).toMatchObject({ ok: false, issues: [{ code: 'invalid_format' }] })
  })

  it('treats formats as annotations when asked, as draft 2020-12 does', () => {
    const raw = { type: 'string', format: 'date-time' }
    expect(compileSchema(raw, { formats: 'annotate' }).validate('tomorrow')).toMatchObject({ ok: true })
    // Compiled once per schema and options: the default still asserts.
    expect(compileSchema(raw).validate('tomorrow')).toMatchObject({ ok: false })
  })
})

describe('Compiled schemas as schemas', () => {
  it('passes a compiled schema through, so the gate can use one compiled with options', async () => {
    const compiled = compileSchema(Order, { registry: [Money, Num] })
    expect(isCompiledSchema(compiled)).toBe(true)
    expect(compileSchema(compiled)).toBe(compiled)
    const gate = createGate({ providers: scripted(['{"total": {"amount": 3, "currency": "USD"}}']), outputSchema: compiled })
    expect((await gate.run(ask('order'))).value).toEqual({ total: { amount: 3, currency: 'USD' } })
  })

  it('keeps the type of a compiled TypeBox schema', () => {
    const compiled = compileSchema(Type.Object({ n: Type.Number() }), { formats: 'annotate' })
    const gate = createGate({ providers: scripted(['{"n": 1}']), outputSchema: compiled })
    expectTypeOf(gate.run).returns.resolves.toHaveProperty('value').toEqualTypeOf<{ n: number }>()
  })
})
