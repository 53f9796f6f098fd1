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

  it("reads the status of the response an HTTP client's error carries, or of the error it wraps", () => {
    // axios: the status and headers sit on `response`; its message names no kind ("Request failed with status code 429").
    const axios = (status: number) =>
      Object.assign(new Error(`Request failed with status code ${status}`), {
        name: 'AxiosError',
        code: status >= 500 ? 'ERR_BAD_RESPONSE' : 'ERR_BAD_REQUEST',
        response: { status, headers: { 'retry-after': '3' } },
      })
    expect(classifyError(axios(429))).toEqual({ kind: 'rate-limit', status: 429, retryAfterMs: 3000 })
    expect(classifyError(axios(500))).toMatchObject({ kind: 'http-5xx', status: 500 })
    expect(classifyError(axios(401)).kind).toBe('auth')
    expect(classifyError(axios(400)).kind).toBe('unknown')
    expect(classifyError({ message: 'HTTP error', response: { statusCode: 408 } }).kind).toBe('timeout')
    expect(classifyError(new Error('model call failed', { cause: { status: 429 } }))).toMatchObject({ kind: 'rate-limit', status: 429 })
    // Only an error status counts: a 200 that failed to parse says nothing of the failure.
    expect(classifyError({ message: 'something odd', response: { status: 200 } })).toEqual({ kind: 'unknown', status: undefined, retryAfterMs: undefined })
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
