import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { wireSchema } from '../../src/gate/wire-schema.ts'
import { utf8Length } from '../../src/model/utf8-length.ts'
import { jsonBytes } from '../../src/policies/budget/json-bytes.ts'
import { reservationUsage } from '../../src/policies/budget/reservation-estimate.ts'
import { createGate, type ModelRequest, type Provider } from '../../src/index.ts'
import { ask, validRefundJson } from '../support/schemas.ts'

/** A provider that keeps every request it was sent and answers `content`. */
function recording(content: string): { readonly provider: Provider; readonly requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    requests,
    provider: {
      name: 'p',
      complete: async (request) => {
        requests.push(request)
        return { content, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
      },
    },
  }
}

const refundSchema = () => ({
  type: 'object',
  properties: { orderId: { type: 'string' }, action: { enum: ['refund', 'reject'] }, amount: { type: 'number' } },
  required: ['orderId', 'action', 'amount'],
})

function isDeeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen)
}

describe('the JSON Schema a gate sends (its wire schema)', () => {
  it('is a deeply frozen copy of what JSON writes of the schema, measured once: its length is the JSON’s, whatever the schema', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (schema) => {
        const wire = wireSchema(schema) as object
        expect(wire).not.toBe(schema)
        expect(JSON.stringify(wire)).toBe(JSON.stringify(schema))
        expect(isDeeplyFrozen(wire)).toBe(true)
        expect(jsonBytes(wire)).toBe(utf8Length(JSON.stringify(schema)))
      }),
      { numRuns: 300 },
    )
  })

  it('is what every request of the gate carries, and the caller’s later edits of its schema object never reach one', async () => {
    const schema = refundSchema()
    const { provider, requests } = recording(validRefundJson)
    const gate = createGate({ providers: [provider], outputSchema: schema })
    const sentAtFirst = JSON.stringify(schema)
    ;(schema.properties as Record<string, unknown>).secret = { type: 'string', description: 'added later' }
    schema.required.push('secret')
    await gate.run(ask('refund #42'))
    await gate.run(ask('refund #43'))
    expect(requests).toHaveLength(2)
    for (const request of requests) {
      expect(JSON.stringify(request.responseSchema)).toBe(sentAtFirst)
      expect(isDeeplyFrozen(request.responseSchema)).toBe(true)
    }
    // One copy for the gate, not one per run.
    expect(requests[0]?.responseSchema).toBe(requests[1]?.responseSchema)
  })

  it('is the caller’s own when the request brings one (measured each time: the caller may change it)', async () => {
    const own = { type: 'object', properties: { note: { type: 'string' } } }
    const { provider, requests } = recording(validRefundJson)
    const gate = createGate({ providers: [provider], outputSchema: refundSchema() })
    await gate.run({ ...ask('hi'), responseSchema: own })
    expect(requests[0]?.responseSchema).toBe(own)
    const before = reservationUsage({ ...ask('hi'), responseSchema: own }, 100).inputTokens
    ;(own.properties as Record<string, unknown>).more = { type: 'string', description: 'x'.repeat(500) }
    expect(reservationUsage({ ...ask('hi'), responseSchema: own }, 100).inputTokens).toBeGreaterThan(before + 500)
  })

  it('a schema JSON cannot write (a cycle, a bigint) is sent as given, and a gate is made all the same', () => {
    const cyclic: Record<string, unknown> = { type: 'object' }
    cyclic.self = cyclic
    expect(wireSchema(cyclic)).toBe(cyclic)
    const big = { type: 'integer', maximum: 10n }
    expect(wireSchema(big)).toBe(big)
    const throwing = {
      type: 'object',
      get properties(): never {
        throw new Error('a getter that throws')
      },
    }
    expect(wireSchema(throwing)).toBe(throwing)
    expect(wireSchema(undefined)).toBeUndefined()
  })

  it('a schema too deep for JSON is sent as given, and a huge one is copied and measured exactly', () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 100_000; i++) deep = { type: 'array', items: deep }
    expect(() => wireSchema(deep)).not.toThrow()
    const wire = wireSchema(deep)
    expect(wire === deep || Object.isFrozen(wire)).toBe(true)
    const properties: Record<string, unknown> = {}
    for (let i = 0; i < 20_000; i++) properties[`field_${i}\n\u2028é`] = { type: 'string', description: 'x'.repeat(40) }
    const huge = { type: 'object', properties }
    const copy = wireSchema(huge) as object
    expect(jsonBytes(copy)).toBe(utf8Length(JSON.stringify(huge)))
    expect(isDeeplyFrozen(copy)).toBe(true)
  })

  it('keeps a `__proto__` key as data, never as the copy’s prototype', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as Record<string, unknown>
    const wire = wireSchema(schema) as { properties: object }
    expect(Object.getPrototypeOf(wire.properties)).toBe(Object.prototype)
    expect(Object.keys(wire.properties)).toEqual(['__proto__'])
    expect(JSON.stringify(wire)).toBe(JSON.stringify(schema))
  })

  it('a value the library did not measure once is walked every time (a caller’s frozen object is not trusted)', () => {
    const inner = { description: 'short' }
    const shallow = Object.freeze({ type: 'object', properties: { a: inner } })
    const first = jsonBytes(shallow)
    inner.description = 'much longer than before'
    expect(jsonBytes(shallow)).toBe(first + 'much longer than before'.length - 'short'.length)
  })
})
