import { describe, expect, it } from 'vitest'
import { classifyError, ProviderError } from '../../src/index.ts'

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

  it('never reads a client error its status names (4xx) as transient from its wording', () => {
    expect(classifyError({ status: 400, message: "Invalid value for 'timeout': expected an integer" }).kind).toBe('unknown')
    expect(classifyError({ status: 404, message: 'The model `timeout-v2` does not exist' }).kind).toBe('unknown')
    expect(classifyError({ status: 422, message: 'network_id is not a valid rate limit tier' }).kind).toBe('unknown')
    expect(classifyError({ statusCode: 410, message: 'Overloaded: this model is gone' }).kind).toBe('unknown')
    // A 409 is a lock timeout by its status (the providers' own clients retry it), whatever its wording.
    expect(classifyError({ statusCode: 409, message: 'conflicting request' }).kind).toBe('timeout')
    expect(classifyError({ status: 400, message: "This model's maximum context length is 8192 tokens" }).kind).toBe('context-overflow')
    expect(classifyError({ status: 400, code: 'rate_limit_exceeded', message: 'x' }).kind).toBe('rate-limit')
    expect(classifyError({ status: 500, message: 'Invalid request' }).kind).toBe('http-5xx')
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

  it('reads an error body an SDK left as JSON in the message', () => {
    expect(classifyError(new Error('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).kind).toBe('http-5xx')
  })

  it('reads retry-after from the headers of a wrapped cause', () => {
    expect(classifyError(new Error('gateway', { cause: { responseHeaders: { 'retry-after': '4' } } })).retryAfterMs).toBe(4000)
  })

  it('reads retry-after from headers objects and Headers instances', () => {
    expect(classifyError({ status: 429, headers: { 'retry-after': '2' } }).retryAfterMs).toBe(2000)
    expect(classifyError({ status: 429, headers: new Headers({ 'retry-after-ms': '150', 'retry-after': '9' }) }).retryAfterMs).toBe(150)
  })
})
