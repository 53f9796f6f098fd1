import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { compileSchema, validateFinalAnswer } from '../../src/validation/index.ts'
import { IncrementalValidator } from '../../src/validation/stream/index.ts'
import { Refund } from '../support/schemas.ts'

const feed = (schema: unknown, text: string, size = 1) => {
  const v = new IncrementalValidator(schema)
  for (let i = 0; i < text.length; i += size) if (v.push(text.slice(i, i + size)) !== undefined) break
  return v
}

describe('IncrementalValidator', () => {
  it('reports a completed value of the wrong type at its path, before the answer ends', () => {
    const text = '{"orderId": "42", "amount": "USD 50", "action": "refund"}'
    const v = feed(Refund, text)
    expect(v.violation).toMatchObject({ path: 'amount', code: 'invalid_type' })
    expect(v.violation?.consumedChars).toBe(text.indexOf('"USD') + 1)
  })

  it('reports an unknown key under additionalProperties false as soon as the key is complete', () => {
    const text = '{"orderId": "42", "extra": 1, "action": "refund", "amount": 5}'
    const v = feed(Refund, text)
    expect(v.violation).toMatchObject({ path: 'extra', code: 'unknown_property' })
    expect(v.violation?.consumedChars).toBe(text.indexOf('"extra"') + '"extra"'.length)
  })

  it('reports an object closed without a required key', () => {
    const v = feed(Refund, '{"orderId": "42", "action": "refund"}')
    expect(v.violation).toMatchObject({ path: 'amount', code: 'missing_required' })
  })

  it('reports an enum string that can no longer match while it is still streaming', () => {
    const v = feed(Refund, '{"orderId": "42", "action": "rem', 1)
    expect(v.violation).toMatchObject({ path: 'action', code: 'invalid_enum' })
    expect(v.violation?.reason).toContain('"rem…" can no longer match one of "refund", "reject"')
  })

  it('does not abort a valid answer and exposes the partial value as it grows', () => {
    const v = new IncrementalValidator(Refund)
    v.push('```json\n{"orderId": "4')
    expect(v.partial).toEqual({ orderId: '4' })
    v.push('2", "action": "refund", "amount": 50}\n```')
    expect(v.violation).toBeUndefined()
    expect(v.partial).toEqual({ orderId: '42', action: 'refund', amount: 50 })
    expect(v.state).toBe('complete')
  })

  it('stays inactive on prose or a scalar answer', () => {
    expect(feed(Refund, 'Sure! {"orderId": 1}').state).toBe('inactive')
    expect(feed(Refund, '"just a string"').state).toBe('inactive')
  })

  it('stops checking when the JSON is malformed instead of guessing', () => {
    const v = feed(Refund, "{'orderId': 1}")
    expect(v.state).toBe('inactive')
    expect(v.violation).toBeUndefined()
  })

  it('reports a fraction as the wrong type where every branch that admits numbers wants an integer', () => {
    const v = feed({ type: 'object', properties: { qty: { anyOf: [{ type: 'integer' }, { type: 'string' }] } } }, '{"qty": 1.5}')
    expect(v.violation).toMatchObject({ path: 'qty', code: 'invalid_type' })
  })

  it('reports a number outside its enum as an enum violation', () => {
    const v = feed({ type: 'object', properties: { level: { enum: [1, 2, 3] } } }, '{"level": 4}')
    expect(v.violation).toMatchObject({ path: 'level', code: 'invalid_enum', reason: 'level: 4 is not one of 1, 2, 3' })
  })

  it('follows $ref, array items, integer and nested required fields', () => {
    const schema = {
      $defs: { item: { type: 'object', properties: { qty: { type: 'integer' }, sku: { type: 'string' } }, required: ['sku'] } },
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/$defs/item' } } },
    }
    expect(feed(schema, '{"items": [{"sku": "a", "qty": 1.5}]}').violation).toMatchObject({ path: 'items[0].qty', code: 'invalid_type' })
    expect(feed(schema, '{"items": [{"sku": "a"}, {"qty": 2}]}').violation).toMatchObject({ path: 'items[1].sku', code: 'missing_required' })
    expect(feed(schema, '{"items": [{"sku": "a", "qty": 2}]}').violation).toBeUndefined()
  })

  it('narrows a nullable union to the branch the value takes', () => {
    const schema = Type.Object({ owner: Type.Union([Type.Null(), Type.Object({ name: Type.String() }, { additionalProperties: false })]) })
    expect(feed(schema, '{"owner": {"nick": "x"}}').violation).toMatchObject({ path: 'owner.nick', code: 'unknown_property' })
    expect(feed(schema, '{"owner": null}').violation).toBeUndefined()
    expect(feed(schema, '{"owner": 3}').violation).toMatchObject({ path: 'owner', code: 'invalid_type' })
  })

  it('does not check keys a patternProperties schema might admit', () => {
    const schema = { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false }
    expect(feed(schema, '{"x-a": "1", "y": 2}').violation).toBeUndefined()
  })

  it('does not abort on a bracketed prose label before the JSON, which the gate accepts', async () => {
    const text = '[Answer]\n```json\n{"orderId": "42", "action": "refund", "amount": 50}\n```'
    expect(await validateFinalAnswer(text, compileSchema(Refund), { repair: true })).toMatchObject({ ok: true })
    expect(feed(Refund, text).violation).toBeUndefined()
    expect(feed(Refund, '[note] then {"orderId": "42", "action": "refund", "amount": 50}').violation).toBeUndefined()
  })

  it('still reports a root of the wrong type once a JSON token follows it', () => {
    const text = '[{"orderId": "42", "action": "refund", "amount": 50}]'
    const v = feed(Refund, text)
    expect(v.violation).toMatchObject({ path: '', code: 'invalid_type' })
    expect(v.violation?.consumedChars).toBe(2)
    expect(feed(Refund, '[]').violation).toMatchObject({ path: '', code: 'invalid_type' })
  })
})

describe('IncrementalValidator with $ref', () => {
  it('follows a percent-encoded local $ref and survives a malformed one', () => {
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/a%20b' }, b: { $ref: '#/$defs/100%' } },
      $defs: { 'a b': { type: 'number' }, '100%': { type: 'string' } },
    }
    expect(feed(schema, '{"a": "x"}').violation).toMatchObject({ path: 'a', code: 'invalid_type' })
    expect(feed(schema, '{"b": 1}').violation).toMatchObject({ path: 'b', code: 'invalid_type' })
    expect(feed(schema, '{"a": 1, "b": "ok"}').violation).toBeUndefined()
  })
})
