import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { compileSchema, formatFeedback, validateToolArgs } from '../../src/validation/index.ts'
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
})
