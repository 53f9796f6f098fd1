import { describe, expect, it } from 'vitest'
import { exponentialBackoff, retryTransient, retryTruncated } from '../../src/index.ts'

const bad = [Number.NaN, -1, Number.POSITIVE_INFINITY]

describe('retryTransient options', () => {
  it.each(bad)('refuses maxRetries %s at construction', (n) => {
    expect(() => retryTransient({ maxRetries: n })).toThrow(new RangeError(`retryTransient: maxRetries must be a non-negative integer, got ${n}`))
  })

  it('refuses a fractional maxRetries', () => {
    expect(() => retryTransient({ maxRetries: 1.5 })).toThrow(RangeError)
  })

  it.each(bad)('refuses maxRetryAfterMs %s at construction', (n) => {
    expect(() => retryTransient({ maxRetryAfterMs: n })).toThrow(
      new RangeError(`retryTransient: maxRetryAfterMs must be a whole number of milliseconds from 0 to 2147483647, got ${n}`),
    )
  })

  it('refuses backoff options it cannot schedule with', () => {
    expect(() => retryTransient({ backoff: { initialMs: Number.NaN } })).toThrow(RangeError)
  })

  it('accepts no retries at all', () => {
    expect(retryTransient({ maxRetries: 0 }).label).toContain('up to 0 times')
  })
})

describe('exponentialBackoff options', () => {
  it.each(['initialMs', 'maxMs'] as const)('refuses a %s that is NaN, negative or infinite', (key) => {
    for (const n of bad)
      expect(() => exponentialBackoff({ [key]: n })).toThrow(
        new RangeError(`exponentialBackoff: ${key} must be a whole number of milliseconds from 0 to 2147483647, got ${n}`),
      )
  })

  it.each([...bad, 0])('refuses factor %s', (n) => {
    expect(() => exponentialBackoff({ factor: n })).toThrow(new RangeError(`exponentialBackoff: factor must be a positive number, got ${n}`))
  })

  it.each([...bad, 1.5])('refuses jitter %s, outside [0, 1]', (n) => {
    expect(() => exponentialBackoff({ jitter: n })).toThrow(RangeError)
  })

  it('accepts the bounds of jitter and a zero delay', () => {
    expect(exponentialBackoff({ initialMs: 0, jitter: 0 })(3)).toBe(0)
    expect(exponentialBackoff({ initialMs: 100, jitter: 1, random: () => 0.5 })(0)).toBe(50)
  })
})

describe('retryTruncated options', () => {
  it.each([...bad, 0.5, 1])('refuses growFactor %s', (n) => {
    expect(() => retryTruncated({ growFactor: n })).toThrow(RangeError)
  })

  it.each([...bad, 0, 2.5])('refuses maxTokensCap %s', (n) => {
    expect(() => retryTruncated({ maxTokensCap: n })).toThrow(new RangeError(`retryTruncated: maxTokensCap must be a positive integer, got ${n}`))
  })

  it.each([...bad, 0, 2.5])('refuses assumedMaxTokens %s', (n) => {
    expect(() => retryTruncated({ assumedMaxTokens: n })).toThrow(new RangeError(`retryTruncated: assumedMaxTokens must be a positive integer, got ${n}`))
  })
})
