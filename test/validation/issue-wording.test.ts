import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import * as z from 'zod'
import { compileSchema, formatFeedback, validateFinalAnswer, validateToolArgs } from '../../src/validation/index.ts'
import { ask } from '../support/schemas.ts'

const Payment = Type.Object({ amount: Type.Number(), currency: Type.String() })

describe('Issue wording', () => {
  it('words an issue the same in the attempt log, the feedback and the failure reason', async () => {
    const provider = scripted(['{"currency": "EUR"}', '{"currency": "EUR"}'])
    const error = await createGate({ providers: provider, outputSchema: Payment, postDecide: strictOutputRules(2) })
      .run(ask('pay'))
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    if (!isReliabilityFailFastError(error)) throw new Error('expected a fail-fast error')
    const line = "'amount': required field is missing"
    expect(error.attempts[0]?.errors).toEqual([line])
    expect(error.attempts[0]?.feedbackSent).toContain(`- ${line} — provide a value`)
    expect(error.reason).toContain(line)
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
