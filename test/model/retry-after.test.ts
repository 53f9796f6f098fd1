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

  it('reads seconds too many for a double in milliseconds as the longest wait, never as none', () => {
    expect(parseRetryAfter(undefined, '1e308')).toBe(Number.MAX_VALUE)
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
