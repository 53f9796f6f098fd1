import { describe, expect, it } from 'vitest'
import { createGate, isValidationFailure, strictOutputRules, type ReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund } from '../support/schemas.ts'

const hostile: Record<string, string> = {
  'deeply nested arrays': '['.repeat(200_000) + ']'.repeat(200_000),
  'deeply nested objects': `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
  'a huge string': `{"orderId": "${'x'.repeat(6_000_000)}"}`,
  'a __proto__ key': '{"orderId": "1", "action": "refund", "amount": 1, "__proto__": {"polluted": true}}',
  'a constructor.prototype key': '{"constructor": {"prototype": {"polluted": true}}}',
  'non-JSON prose': 'Sure! I would be glad to help you with that refund.',
  'an empty answer': '',
  'only whitespace': '   \n\t ',
  'unbalanced brackets in prose': 'look: {{{{[[[[ "a": ',
  'a lone surrogate and NUL bytes': '{"orderId": "\ud800\u0000", "action": "refund", "amount": 1',
}

describe('hostile model output', () => {
  for (const [name, output] of Object.entries(hostile)) {
    it(`turns ${name} into a ValidationFailure, not a crash`, async () => {
      const gate = createGate({ providers: scripted([output]), outputSchema: Refund })
      const error = (await gate.run(ask('x')).catch((e: unknown) => e)) as ReliabilityFailFastError
      expect(error.name).toBe('ReliabilityFailFastError')
      expect(['schema-fail', 'truncated']).toContain(error.kind)
      expect(isValidationFailure(error.validationError)).toBe(true)
      expect(error.validationError?.message.length).toBeGreaterThan(0)
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
      expect(Object.prototype).not.toHaveProperty('polluted')
    })
  }

  it('feeds a prose answer back with a bounded echo and never pollutes prototypes across retries', async () => {
    const provider = scripted([hostile['a __proto__ key'] as string, hostile['a huge string'] as string, '{"orderId": "1", "action": "refund", "amount": 1}'])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = await gate.run(ask('x'))
    expect(result.attempts).toHaveLength(3)
    expect((provider.requests[2]?.messages[1]?.content ?? '').length).toBeLessThan(5000)
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })
})
