import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nonNegativeInteger, nonNegativeNumber, positiveInteger, positiveNumber } from '../../src/model/assert-number.ts'

const checks = { positiveNumber, nonNegativeNumber, positiveInteger, nonNegativeInteger }

describe('assert-number', () => {
  it.each([
    ['positiveNumber', 0.5, 0],
    ['nonNegativeNumber', 0, -0.5],
    ['positiveInteger', 1, 1.5],
    ['nonNegativeInteger', 0, -1],
  ] as const)('%s returns an accepted value and rejects a value just outside', (name, accepted, rejected) => {
    expect(checks[name](accepted, 'opt')).toBe(accepted)
    expect(() => checks[name](rejected, 'opt')).toThrow(RangeError)
  })

  it('names the option, the expectation and the value in its message', () => {
    expect(() => positiveNumber(0, 'createGate: timeoutMs')).toThrow('createGate: timeoutMs must be a positive number, got 0')
    expect(() => nonNegativeInteger('2', "tool 'x': maxRetries")).toThrow(`tool 'x': maxRetries must be a non-negative integer, got "2"`)
  })

  it('returns the fallback for undefined, and only for undefined', () => {
    expect(positiveInteger(undefined, 'opt', 3)).toBe(3)
    expect(() => positiveInteger(null, 'opt', 3)).toThrow('opt must be a positive integer, got null')
  })

  it('rejects undefined when there is no fallback', () => {
    expect(() => nonNegativeNumber(undefined, 'usd')).toThrow('usd must be a non-negative number, got undefined')
  })

  it('rejects NaN, infinities and non-numbers in every variant', () => {
    for (const check of Object.values(checks)) {
      for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '1', true, {}, 1n]) {
        expect(() => check(value, 'opt')).toThrow(RangeError)
      }
    }
  })

  it('accepts exactly the numbers its name promises', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer({ min: -5, max: 5 })), (n) => {
        const accepts = (check: (v: unknown, l: string) => number) => {
          try {
            return check(n, 'opt') === n
          } catch {
            return false
          }
        }
        expect(accepts(positiveNumber)).toBe(Number.isFinite(n) && n > 0)
        expect(accepts(nonNegativeNumber)).toBe(Number.isFinite(n) && n >= 0)
        expect(accepts(positiveInteger)).toBe(Number.isSafeInteger(n) && n >= 1)
        expect(accepts(nonNegativeInteger)).toBe(Number.isSafeInteger(n) && n >= 0)
      }),
    )
  })
})
