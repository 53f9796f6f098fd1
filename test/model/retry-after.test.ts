import { describe, expect, it } from 'vitest'
import { parseRetryAfter, retryAfterMs } from '../../src/model/retry-after.ts'

describe('parseRetryAfter', () => {
  it('parses seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfter(undefined, '1.5')).toBe(1500)
    expect(parseRetryAfter('20', '5')).toBe(20)
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter(undefined, 'Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000)
    expect(parseRetryAfter(undefined, 'garbage')).toBeUndefined()
  })

  it('reads a wait longer than a timer holds (2^31-1 ms) as that longest wait, never as none, never as a timer that fires at once', () => {
    const longest = 2 ** 31 - 1
    for (const seconds of ['1e10', '2147483.648', '1e308', '1e400', 'Infinity']) expect(parseRetryAfter(undefined, seconds)).toBe(longest)
    expect(parseRetryAfter('5000000000', undefined)).toBe(longest)
    expect(parseRetryAfter('2147483647', undefined)).toBe(longest)
    expect(parseRetryAfter(undefined, '2147483.647')).toBe(longest)
    // A retry-after-ms that is no finite number is unreadable: absent.
    expect(parseRetryAfter('1e400', undefined)).toBeUndefined()
  })

  it('reads a negative number of seconds as no wait, as a date in the past, never as a year', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    for (const value of ['-1', '-5', ' -0.5 ', '-0', '-2026']) expect(parseRetryAfter(undefined, value, now)).toBe(0)
    expect(parseRetryAfter(undefined, '-1e400', now)).toBeUndefined()
    expect(parseRetryAfter('-1', undefined, now)).toBeUndefined()
    expect(parseRetryAfter('-0', undefined, now)).toBe(0)
  })

  it('reads HTTP dates in the past as no wait and far in the future as their distance', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter(undefined, 'Thu, 01 Jan 1970 00:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter(undefined, 'Fri, 31 Dec 9999 23:59:59 GMT', now)).toBe(2 ** 31 - 1)
    expect(parseRetryAfter(undefined, 'Thu, 01 Jan 2026 01:00:00 GMT', now)).toBe(3_600_000)
  })

  it('reads delta-seconds written with spaces, and refuses numbers that are not decimal', () => {
    expect(parseRetryAfter(undefined, '  3  ')).toBe(3000)
    for (const value of ['0x10', '0b11', '0o7', '1_000', '3s']) expect(parseRetryAfter(undefined, value)).toBeUndefined()
    expect(parseRetryAfter('0x10', '2')).toBe(2000)
  })
})

describe('retryAfterMs', () => {
  it('reads plain header records whatever the case of their names', () => {
    expect(retryAfterMs({ 'Retry-After': '2' })).toBe(2000)
    expect(retryAfterMs(new Headers({ 'Retry-After-Ms': '150', 'retry-after': '9' }))).toBe(150)
  })

  it('treats blank values as absent, not as no wait', () => {
    expect(retryAfterMs({ 'retry-after-ms': ' ', 'retry-after': '3' })).toBe(3000)
    expect(retryAfterMs({ 'retry-after': '' })).toBeUndefined()
  })

  it('ignores headers that are not strings', () => {
    expect(retryAfterMs({ 'retry-after': 5 } as unknown as Record<string, string>)).toBeUndefined()
    expect(retryAfterMs(undefined)).toBeUndefined()
  })
})
