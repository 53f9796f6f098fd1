import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { compileSchema, isValidationFailure, validateFinalAnswer } from '../../src/validation/index.ts'

const Refund = compileSchema(Type.Object({ amount: Type.Number() }, { additionalProperties: false }))

describe('validateFinalAnswer', () => {
  it('accepts the text itself without a schema', () => {
    expect(validateFinalAnswer('anything at all', undefined)).toEqual({ ok: true, value: 'anything at all' })
  })

  it('returns the typed value and where it was found', () => {
    expect(validateFinalAnswer('Sure:\n```json\n{"amount": 5}\n```', Refund)).toEqual({ ok: true, value: { amount: 5 }, extractedFrom: 'fenced' })
  })

  it('accepts an object answer followed by a citation against an object schema', () => {
    expect(validateFinalAnswer('{"amount": 50}\n\nNote: based on policy [1].', Refund)).toEqual({ ok: true, value: { amount: 50 }, extractedFrom: 'embedded' })
  })

  it('repairs an object answer followed by a citation without taking the citation', () => {
    expect(validateFinalAnswer("{'amount': 50} as per [2].", Refund, { repair: true })).toMatchObject({ ok: true, value: { amount: 50 } })
  })

  it('stays synchronous for a synchronous schema', () => {
    expect(validateFinalAnswer('{"amount": 5}', Refund)).not.toBeInstanceOf(Promise)
    expect(validateFinalAnswer('{"amount": 5}', compileSchema(z.object({ amount: z.number() })))).not.toBeInstanceOf(Promise)
  })

  it('fails at json-parse with the extraction message', () => {
    const verdict = validateFinalAnswer('no json here', Refund)
    if (verdict instanceof Promise || verdict.ok) throw new Error('expected a synchronous failure')
    expect(isValidationFailure(verdict.failure)).toBe(true)
    expect(verdict.failure).toMatchObject({
      stage: 'json-parse',
      issues: [],
      message: 'json-parse: no JSON object or array found in the response',
      rawOutput: 'no json here',
    })
  })

  it('fails at schema-validate with the issues and a one-line message', () => {
    const content = '{"amount": "USD 50", "extra": 1}'
    const verdict = validateFinalAnswer(content, Refund)
    if (verdict instanceof Promise || verdict.ok) throw new Error('expected a synchronous failure')
    expect(verdict.failure).toMatchObject({
      stage: 'schema-validate',
      path: 'amount',
      message: "schema-validate: 'amount': expected number, got \"USD 50\"; 'extra': unknown field",
      rawOutput: content,
    })
    expect(verdict.failure.issues.map((i) => i.code)).toEqual(['invalid_type', 'unknown_property'])
  })

  it('names the failing value among several tool-call blocks, by its index, with and without repair', () => {
    const Calls = compileSchema(Type.Array(Type.Object({ name: Type.String(), arguments: Type.Object({}) })))
    const block = (json: string) => `<tool_call>${json}</tool_call>`
    const text = [block('{"name": "a", "arguments": {}}'), block('{"name": "b", "arguments": {"x": 1}}'), block('{"name": 3, "arguments": {}}')].join('\n')
    for (const repair of [false, true]) {
      const result = validateFinalAnswer(text, Calls, { repair })
      if (result instanceof Promise || result.ok) throw new Error('expected a synchronous failure')
      expect(result.failure.stage).toBe('schema-validate')
      expect(result.failure.issues.map((i) => i.path)).toEqual(['[2].name'])
      expect(result.failure.message).toContain("'[2].name'")
    }
  })

  it('answers with a promise for an asynchronous schema', async () => {
    const schema = compileSchema(z.object({ amount: z.number() }).refine(async (v) => v.amount > 0, { message: 'must be positive' }))
    const verdict = validateFinalAnswer('{"amount": -1}', schema)
    expect(verdict).toBeInstanceOf(Promise)
    await expect(verdict).resolves.toMatchObject({ ok: false, failure: { stage: 'schema-validate', message: "schema-validate: '(root)': must be positive" } })
  })

  it.each([
    ['100,000 levels of nesting', '['.repeat(100_000) + ']'.repeat(100_000)],
    ['a 5 MB string', `{"amount": "${'x'.repeat(5_000_000)}"}`],
    ['a __proto__ key', '{"__proto__": {"polluted": true}}'],
    ['constructor.prototype', '{"constructor": {"prototype": {"x": 1}}}'],
    ['non-JSON', 'amount: fifty'],
    ['an empty answer', ''],
    ['only whitespace', ' \n\t '],
  ])('returns a json-parse failure for %s', (_name, content) => {
    const verdict = validateFinalAnswer(content, Refund)
    if (verdict instanceof Promise) throw new Error('expected a synchronous verdict')
    expect(verdict.ok).toBe(false)
    if (!verdict.ok) expect(verdict.failure.stage).toBe('json-parse')
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    expect(({} as Record<string, unknown>)['x']).toBeUndefined()
  })

  it('carries a forbidden_key issue for a __proto__ key', () => {
    const verdict = validateFinalAnswer('{"__proto__": {"polluted": true}}', Refund)
    if (verdict instanceof Promise || verdict.ok) throw new Error('expected a synchronous failure')
    expect(verdict.failure.issues).toMatchObject([{ code: 'forbidden_key', path: '__proto__' }])
  })
})
