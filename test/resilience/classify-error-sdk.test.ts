import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { classifyError } from '../../src/index.ts'

describe('classifyError on provider SDK errors', () => {
  it('classifies Anthropic errors by status and reads retry-after from their Headers', () => {
    const overloaded = Anthropic.APIError.generate(
      529,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      undefined,
      new Headers({ 'retry-after': '3' }),
    )
    expect(classifyError(overloaded)).toEqual({ kind: 'http-5xx', status: 529, retryAfterMs: 3000 })
  })

  it('classifies an Anthropic overloaded_error body without a status (as sent mid-stream)', () => {
    const streamed = new Anthropic.APIError(undefined, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, undefined, undefined)
    expect(classifyError(streamed).kind).toBe('http-5xx')
    expect(classifyError({ error: { type: 'error', error: { type: 'rate_limit_error' } } }).kind).toBe('rate-limit')
  })

  it('classifies connection, timeout and abort errors of both SDKs by class', () => {
    expect(classifyError(new Anthropic.APIConnectionTimeoutError()).kind).toBe('timeout')
    expect(classifyError(new Anthropic.APIConnectionError({ message: 'x' })).kind).toBe('network')
    expect(classifyError(new Anthropic.APIUserAbortError()).kind).toBe('aborted')
    expect(classifyError(new OpenAI.APIConnectionTimeoutError()).kind).toBe('timeout')
    expect(classifyError(new OpenAI.APIConnectionError({ message: 'x' })).kind).toBe('network')
    // The openai client keeps `name` 'Error'; the class name is what tells.
    expect(classifyError(new OpenAI.APIUserAbortError()).kind).toBe('aborted')
  })

  it('classifies OpenAI rate limits with retry-after-ms', () => {
    const limited = OpenAI.APIError.generate(
      429,
      { message: 'Rate limit', type: 'requests', code: 'rate_limit_exceeded' },
      undefined,
      new Headers({ 'retry-after-ms': '250' }),
    )
    expect(classifyError(limited)).toEqual({ kind: 'rate-limit', status: 429, retryAfterMs: 250 })
  })

  it('classifies error bodies by type or code when there is no status', () => {
    expect(classifyError({ error: { type: 'server_error', message: 'The server had an error' } }).kind).toBe('http-5xx')
    expect(classifyError({ error: { code: 'insufficient_quota' } }).kind).toBe('rate-limit')
    expect(classifyError({ type: 'overloaded_error' }).kind).toBe('http-5xx')
  })

  it('classifies node error codes on the error or its cause', () => {
    expect(classifyError(Object.assign(new Error('x'), { code: 'ETIMEDOUT' })).kind).toBe('timeout')
    expect(classifyError(new TypeError('fetch failed', { cause: { code: 'UND_ERR_CONNECT_TIMEOUT' } })).kind).toBe('network')
  })

  it('leaves a client error unknown, with its status', () => {
    const bad = Anthropic.APIError.generate(400, { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } }, undefined, new Headers())
    expect(classifyError(bad)).toMatchObject({ kind: 'unknown', status: 400 })
  })
})
