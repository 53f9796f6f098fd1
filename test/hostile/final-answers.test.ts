import { describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { noEphemeral, observeRun } from './support.ts'

const refund = (fields: string): string => `{"orderId":"1","action":"refund","amount":1${fields}}`

/** Final answers a model may give that fail, with the validation stage and first issue code they fail with. */
const FAILING: readonly (readonly [string, string, 'json-parse' | 'schema-validate', string | undefined])[] = [
  ['prose without JSON', 'Sure, here you go!', 'json-parse', undefined],
  ['an empty answer', '', 'json-parse', undefined],
  ['only whitespace', '  \n\t ', 'json-parse', undefined],
  ['an HTML error page', '<html><body>502 Bad Gateway</body></html>', 'json-parse', undefined],
  ['200,000 nested arrays', '['.repeat(200_000) + ']'.repeat(200_000), 'json-parse', undefined],
  ['a NaN literal', '{"orderId":"1","action":"refund","amount":NaN}', 'json-parse', undefined],
  ['a raw NUL byte inside a string', '{"orderId":"\u0000","action":"refund","amount":1}', 'json-parse', undefined],
  ['a __proto__ key', refund(',"__proto__":{"polluted":true}'), 'json-parse', 'forbidden_key'],
  ['a constructor.prototype key', refund(',"constructor":{"prototype":{"polluted":true}}'), 'json-parse', 'forbidden_key'],
  ['an array instead of an object', '[1,2]', 'schema-validate', 'invalid_type'],
  ['a bare number', '42', 'schema-validate', 'invalid_type'],
  ['a bare string', '"hello"', 'schema-validate', 'invalid_type'],
  ['null', 'null', 'schema-validate', 'invalid_type'],
  ['a number given as text', '{"orderId":"1","action":"refund","amount":"USD 50"}', 'schema-validate', 'invalid_type'],
  // JSON has no Infinity: refused when parsed, with a message that says so (never "expected number, got number").
  ['a number that overflows to Infinity', '{"orderId":"1","action":"refund","amount":1e999}', 'json-parse', undefined],
  // JSON.parse keeps the last silently; which one the model meant is unknown.
  ['a key written twice with different values', '{"orderId":"1","action":"reject","action":"refund","amount":1}', 'json-parse', 'other'],
  ['a missing required field', '{"orderId":"1","action":"refund"}', 'schema-validate', 'missing_required'],
  ['an invented field', refund(',"note":"x"'), 'schema-validate', 'unknown_property'],
  ['a value outside the enum', '{"orderId":"1","action":"maybe","amount":1}', 'schema-validate', 'invalid_enum'],
]

/** Final answers that pass, possibly after extraction or repair, with the value they give. */
const PASSING: readonly (readonly [string, string, unknown])[] = [
  ['JSON in a fenced block inside prose', `Here it is:\n\`\`\`json\n${validRefundJson}\n\`\`\``, validRefund],
  ['a trailing comma', refund(','), { orderId: '1', action: 'refund', amount: 1 }],
  ['a key written twice with the same value', '{"orderId":"1","action":"refund","action":"refund","amount":1}', { orderId: '1', action: 'refund', amount: 1 }],
  ['a byte order mark', `\ufeff${validRefundJson}`, validRefund],
  ['a negative zero', '{"orderId":"1","action":"refund","amount":-0}', { orderId: '1', action: 'refund', amount: -0 }],
  ['a lone surrogate in a string', '{"orderId":"\ud800","action":"refund","amount":1}', { orderId: '\ud800', action: 'refund', amount: 1 }],
]

const agentOn = (outputs: readonly string[], retries = false) =>
  Agent.create({ provider: scripted(outputs) })
    .outputSchema(Refund)
    .reliability(retries ? { postDecide: strictOutputRules(3) } : {})
    .build()

describe('hostile final answers', () => {
  it.each(FAILING)('fail %s with kind schema-fail at stage %s, reported before the decision, history untouched', async (_name, output, stage, code) => {
    const seen = await observeRun(agentOn([output]), 'refund order 1')
    expect(isReliabilityFailFastError(seen.error)).toBe(true)
    expect(seen.error).toMatchObject({
      kind: 'schema-fail',
      phase: 'post-decide',
      validationError: { stage },
      attempts: [{ status: stage === 'json-parse' ? 'parse_error' : 'schema_error' }],
    })
    if (code !== undefined) expect((seen.error as { validationError: { issues: { code: string }[] } }).validationError.issues[0]?.code).toBe(code)
    expect(seen.events.validation_failed.map((e) => e.stage)).toEqual([stage])
    expect(seen.events.fail_fast.map((e) => e.kind)).toEqual(['schema-fail'])
    expect(seen.history).toEqual([])
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  it.each(FAILING)('retry %s with an ephemeral tail and commit only the accepted answer', async (_name, output) => {
    const provider = scripted([output, validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const seen = await observeRun(agent, 'refund order 1')
    expect(seen.value).toEqual(validRefund)
    const tail = provider.requests[1]?.messages.slice(1) ?? []
    expect(tail.map((m) => [m.role, m.ephemeral])).toEqual([
      ['assistant', true],
      ['user', true],
    ])
    expect(seen.history).toEqual([
      { role: 'user', content: 'refund order 1' },
      { role: 'assistant', content: validRefundJson },
    ])
    expect(seen.events.recovered).toHaveLength(1)
  })

  it.each(PASSING)('accept %s with its value, committing the raw answer only', async (_name, output, value) => {
    const seen = await observeRun(agentOn([output]), 'refund order 1')
    expect(seen.error).toBeUndefined()
    expect(seen.value).toEqual(value)
    expect(seen.history).toEqual([
      { role: 'user', content: 'refund order 1' },
      { role: 'assistant', content: output },
    ])
    expect(noEphemeral(seen.history)).toBe(true)
    expect(seen.events.validation_failed).toEqual([])
  })
})
