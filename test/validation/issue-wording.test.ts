import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createGate, isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { compileSchema, formatFeedback, validateFinalAnswer, validateToolArgs } from '../../src/validation/index.ts'
import { ask } from '../support/schemas.ts'

const Payment = Type.Object({ amount: Type.Number(), currency: Type.String() })

describe('Issue wording', () => {
  it('gives the same feedback for the same answer whatever the kind of schema, fields to remove last', async () => {
    const refund = Type.Object(
      { orderId: Type.String(), action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]), amount: Type.Number() },
      { additionalProperties: false },
    )
    const zodRefund = z.object({ orderId: z.string(), action: z.enum(['refund', 'reject']), amount: z.number() }).strict()
    const schemas = { typebox: refund, jsonSchema: JSON.parse(JSON.stringify(refund)), zod: zodRefund, parse: { parse: (v: unknown) => zodRefund.parse(v) } }
    const feedbackFor = async (answer: string) => {
      const texts: Record<string, string | undefined> = {}
      for (const [kind, schema] of Object.entries(schemas)) {
        const provider = scripted([answer, '{"orderId": "42", "action": "refund", "amount": 50}'])
        await createGate({ providers: provider, outputSchema: schema as typeof refund, postDecide: strictOutputRules(2) }).run(ask('refund order #42'))
        texts[kind] = provider.requests[1]?.messages.at(-1)?.content
      }
      return texts
    }
    const readme = [
      'Your previous response failed schema validation.',
      'Validation errors:',
      '- \'amount\': expected number, got "USD 50"',
      "- 'note': unknown field — remove it",
      'Please fix these issues and return a corrected JSON object.',
    ].join('\n')
    const same = (text: string) => ({ typebox: text, jsonSchema: text, zod: text, parse: text })
    expect(await feedbackFor('{"orderId": "42", "action": "refund", "amount": "USD 50", "note": "dup"}')).toEqual(same(readme))
    const mixed = await feedbackFor('{"note": "dup", "action": "maybe", "amount": "USD 50"}')
    expect(mixed).toEqual(same(mixed.typebox ?? ''))
    expect(mixed.typebox?.split('\n').slice(2, -1)).toEqual([
      "- 'orderId': required field is missing — provide a value",
      '- \'action\': expected one of "refund", "reject", got "maybe"',
      '- \'amount\': expected number, got "USD 50"',
      "- 'note': unknown field — remove it",
    ])
  })

  it('words an issue the same in the attempt log, the feedback and the failure reason (the log as pyconveyor writes it, loc_str: msg)', async () => {
    const provider = scripted(['{"currency": "EUR"}', '{"currency": "EUR"}'])
    const error = await createGate({ providers: provider, outputSchema: Payment, postDecide: strictOutputRules(2) })
      .run(ask('pay'))
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    if (!isReliabilityFailFastError(error)) throw new Error('expected a fail-fast error')
    const line = "'amount': required field is missing"
    expect(error.attempts[0]?.errors).toEqual(['amount: required field is missing — provide a value'])
    expect(error.attempts[0]?.feedbackSent).toContain(`- ${line} — provide a value`)
    // The rule that decided is the reason (agentfootprint's `reliability-<phase>: <label>`); what failed is the payload's message.
    expect(error.reason).toBe('reliability-post-decide: model produced the same validation error twice in a row')
    expect(error.payload.errorMessage).toContain(line)
  })

  it('says a wrong value of a typed enum in one line, as a union of literals and a Zod enum say it', () => {
    const lines = (schema: Parameters<typeof compileSchema>[0], value: unknown) => {
      const verdict = compileSchema(schema).validate(value)
      if (verdict instanceof Promise || verdict.ok) throw new Error('expected a synchronous failure')
      return formatFeedback({ target: 'final', stage: 'schema-validate', issues: verdict.issues }).split('\n').slice(2, -1)
    }
    const oneLine = ['- \'action\': expected one of "refund", "reject", got 5']
    const jsonSchema = { type: 'object', properties: { action: { type: 'string', enum: ['refund', 'reject'] } } }
    expect(lines(jsonSchema, { action: 5 })).toEqual(oneLine)
    expect(lines(Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]) }), { action: 5 })).toEqual(oneLine)
    expect(lines(z.object({ action: z.enum(['refund', 'reject']) }), { action: 5 })).toEqual(oneLine)
    expect(lines(jsonSchema, { action: 'maybe' })).toEqual(['- \'action\': expected one of "refund", "reject", got "maybe"'])
  })

  it('says once that tool arguments are not valid JSON', () => {
    const verdict = validateToolArgs('{"amount": ', compileSchema(Payment))
    if (verdict instanceof Promise || verdict.ok) throw new Error('expected a synchronous failure')
    const text = formatFeedback({ target: 'tool', stage: 'tool-args', issues: verdict.failure.issues, toolName: 'pay' })
    expect(text.match(/not valid JSON/g)).toHaveLength(1)
    expect(text).toMatch(/- '\(root\)': the arguments are not valid JSON: /)
  })

  it('says an object or a list sent as a string of its JSON should be sent itself, whatever the kind of schema', () => {
    const schemas = [
      Type.Object({ tags: Type.Array(Type.String()) }),
      z.object({ tags: z.array(z.string()) }),
      { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } }, required: ['tags'] },
    ]
    for (const schema of schemas) {
      const compiled = compileSchema(schema)
      const whole = validateFinalAnswer('"{\\"tags\\": [\\"a\\"]}"', compiled)
      const inner = validateFinalAnswer('{"tags": "[\\"a\\"]"}', compiled)
      const plain = validateFinalAnswer('"just text"', compiled)
      if (whole instanceof Promise || inner instanceof Promise || plain instanceof Promise) throw new Error('expected synchronous verdicts')
      expect(whole.ok ? '' : whole.failure.message).toContain(
        "'(root)': expected object, got a string holding the object as JSON text: write the object itself, not quoted as a string",
      )
      expect(inner.ok ? '' : inner.failure.message).toContain(
        "'tags': expected list/array, got a string holding the array as JSON text: write the array itself",
      )
      // A string that is no JSON text of the expected type is named by its type, as before.
      expect(plain.ok ? '' : plain.failure.message).toContain("'(root)': expected object, got string")
      expect(plain.ok ? '' : plain.failure.message).not.toContain('JSON text')
    }
  })
})
