import { describe, expect, it } from 'vitest'
import { classifyError, ProviderError } from '../../src/index.ts'
import { parseRetryAfter } from '../../src/gate/index.ts'

describe('classifyError', () => {
  it('trusts an already classified ProviderError', () => {
    expect(classifyError(new ProviderError('x', { kind: 'circuit-open' })).kind).toBe('circuit-open')
  })

  it('uses the status code first', () => {
    expect(classifyError({ status: 429, message: 'timeout' }).kind).toBe('rate-limit')
    expect(classifyError({ status: 529 }).kind).toBe('http-5xx')
    expect(classifyError({ status: 503 }).kind).toBe('http-5xx')
    expect(classifyError({ statusCode: 408 }).kind).toBe('timeout')
  })

  it('then error codes and names', () => {
    expect(classifyError(Object.assign(new Error('socket'), { code: 'ECONNRESET' })).kind).toBe('network')
    expect(classifyError(Object.assign(new Error('x'), { name: 'TimeoutError' })).kind).toBe('timeout')
    expect(classifyError(Object.assign(new Error('x'), { name: 'AbortError' })).kind).toBe('aborted')
    expect(classifyError(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })).kind).toBe('network')
  })

  it('then message patterns, and unknown otherwise', () => {
    expect(classifyError(new Error('Rate limit reached for requests')).kind).toBe('rate-limit')
    expect(classifyError(new Error('Request timed out.')).kind).toBe('timeout')
    expect(classifyError(new Error('Overloaded')).kind).toBe('http-5xx')
    expect(classifyError(new Error('something odd')).kind).toBe('unknown')
    expect(classifyError('a string').kind).toBe('unknown')
    expect(classifyError(null).kind).toBe('unknown')
  })

  it('reads retry-after from headers objects and Headers instances', () => {
    expect(classifyError({ status: 429, headers: { 'retry-after': '2' } }).retryAfterMs).toBe(2000)
    expect(classifyError({ status: 429, headers: new Headers({ 'retry-after-ms': '150', 'retry-after': '9' }) }).retryAfterMs).toBe(150)
  })
})

describe('parseRetryAfter', () => {
  it('parses seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfter(undefined, '1.5')).toBe(1500)
    expect(parseRetryAfter('20', '5')).toBe(20)
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter(undefined, 'Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000)
    expect(parseRetryAfter(undefined, 'garbage')).toBeUndefined()
  })
})
