import { describe, expect, it } from 'vitest'
import { createGate, failoverRule, ProviderError, strictOutput, stuckLoopRule, type Provider } from '../../src/index.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'

describe('stuckLoopRule(n)', () => {
  it.each([
    [0, /stuckLoopRule: n must be at least 2 \(identical failures in a row\), got 0|must be a positive integer, got 0/],
    [1, /stuckLoopRule: n must be at least 2 \(identical failures in a row\), got 1/],
    [-2, /stuckLoopRule: n must be a positive integer, got -2/],
    [2.5, /must be a positive integer, got 2\.5/],
    [Number.NaN, /must be a positive integer, got NaN/],
    ['3', /must be a positive integer, got "3"/],
  ])('refuses %s', (n, message) => {
    expect(() => stuckLoopRule(n as number)).toThrow(RangeError)
    expect(() => stuckLoopRule(n as number)).toThrow(message)
  })

  it('takes 2 and more, and names n in its label', () => {
    expect(stuckLoopRule().label).toContain('same validation error twice in a row')
    expect(stuckLoopRule(5).label).toContain('same validation error 5 times in a row')
  })
})

describe('failoverRule(kinds)', () => {
  it('refuses a list that is no array or holds something that is no error kind, naming the kinds', () => {
    expect(() => failoverRule('rate-limit' as never)).toThrow(/failoverRule: kinds must be an array of error kinds, got string/)
    expect(() => failoverRule(['rate-limit', 'rate_limit'] as never)).toThrow(
      /failoverRule: "rate_limit" is not an error kind; the kinds are ok, schema-fail, .*rate-limit/,
    )
    expect(() => failoverRule([429] as never)).toThrow(/failoverRule: 429 is not an error kind/)
  })

  it('fails over on the kinds it is given', async () => {
    const limited: Provider = {
      name: 'limited',
      complete: async () => {
        throw new ProviderError('slow down', { kind: 'rate-limit', status: 429 })
      },
    }
    const backup: Provider = {
      name: 'backup',
      complete: async () => ({ content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }),
    }
    const gate = createGate({ providers: [limited, backup], outputSchema: Refund, postDecide: [failoverRule(['rate-limit'])] })
    const result = await gate.run(ask('hi'))
    expect(result.value).toEqual(validRefund)
    expect(result.provider).toBe('backup')
  })
})

describe('strictOutput(options)', () => {
  it.each([
    ['null', null, /strictOutput: options must be an object, got null/],
    ['a number', 3, /strictOutput: options must be an object, got number/],
    ['an array', [{ maxAttempts: 3 }], /strictOutput: options must be an object, got an array/],
  ])('refuses options that are %s', (_name, options, message) => {
    expect(() => strictOutput(options as never)).toThrow(TypeError)
    expect(() => strictOutput(options as never)).toThrow(message)
  })

  it('refuses a retryOn that is no array or names no category, listing the categories', () => {
    expect(() => strictOutput({ retryOn: 'parse' as never })).toThrow(/strictOutput: retryOn must be an array of categories, got string/)
    expect(() => strictOutput({ retryOn: ['parse', 'json'] as never })).toThrow(
      /strictOutput: retryOn holds "json"; the categories are parse, schema, timeout, http_error, rate_limit/,
    )
    expect(() => strictOutput({ retryOn: ['rate-limit'] as never })).toThrow(/retryOn holds "rate-limit"/)
  })

  it('takes every category', () => {
    const config = strictOutput({ retryOn: ['parse', 'schema', 'timeout', 'http_error', 'rate_limit'] })
    expect(config.postDecide?.map((rule) => rule.kind)).toEqual(expect.arrayContaining(['parse-retry', 'schema-retry']))
  })
})
