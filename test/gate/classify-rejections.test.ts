import { APIError as AnthropicAPIError } from '@anthropic-ai/sdk'
import { APICallError } from '@ai-sdk/provider'
import { APIError as OpenAIAPIError } from 'openai'
import { describe, expect, it } from 'vitest'
import { classifyError, FAIL_FAST_KINDS, isRejectionKind, ProviderError, REJECTION_KINDS } from '../../src/index.ts'
import { ERROR_KINDS, isTransientKind } from '../../src/model/index.ts'
import { breakerResult } from '../../src/policies/breaker/breaker-admission.ts'
import { toProviderError } from '../../src/providers/adapter-kit/to-provider-error.ts'
import {
  ANTHROPIC_CONTEXT_OVERFLOW,
  ANTHROPIC_INPUT_AND_MAX_TOKENS,
  ANTHROPIC_SCHEMA_REJECTED,
  ANTHROPIC_TOO_LARGE,
  ANTHROPIC_UNSUPPORTED,
  OPENAI_CONTEXT_OVERFLOW,
  OPENAI_SCHEMA_REJECTED,
  OPENAI_UNSUPPORTED_PARAMETER,
  OPENAI_UNSUPPORTED_VALUE,
} from '../adapters/support/rejection-bodies.ts'

const headers = new Headers()
const openaiError = (status: number, body: unknown) => OpenAIAPIError.generate(status, body as object, undefined, headers)
const anthropicError = (status: number, body: unknown) => AnthropicAPIError.generate(status, body as object, undefined, headers)
/** An APICallError as the AI SDK's providers build it: the parsed body as `data`, its message as the message. */
const aiSdkError = (status: number, body: { error: { message: string } }) =>
  new APICallError({
    message: body.error.message,
    url: 'https://api.example/v1',
    requestBodyValues: {},
    statusCode: status,
    responseBody: JSON.stringify(body),
    data: body,
  })

describe('classifyError of refused requests', () => {
  it('lists the four rejection kinds as error kinds and fail-fast kinds, none of them transient', () => {
    for (const kind of REJECTION_KINDS) {
      expect(ERROR_KINDS).toContain(kind)
      expect(FAIL_FAST_KINDS).toContain(kind)
      expect(isTransientKind(kind)).toBe(false)
      expect(isRejectionKind(kind)).toBe(true)
    }
    expect(isRejectionKind('unknown')).toBe(false)
  })

  it('never counts a refused request against the provider in the circuit breaker', () => {
    for (const kind of REJECTION_KINDS) expect(breakerResult(kind)).toBe('ignored')
  })

  it.each([
    ['context_length_exceeded', OPENAI_CONTEXT_OVERFLOW, 'context-overflow'],
    ['unsupported_parameter', OPENAI_UNSUPPORTED_PARAMETER, 'unsupported-parameter'],
    ['unsupported_value', OPENAI_UNSUPPORTED_VALUE, 'unsupported-parameter'],
    ['a response_format schema', OPENAI_SCHEMA_REJECTED, 'schema-rejected'],
  ])('classifies an OpenAI 400 %s', (_name, body, kind) => {
    expect(classifyError(openaiError(400, body)).kind).toBe(kind)
    expect(toProviderError(openaiError(400, body), 'openai').kind).toBe(kind)
  })

  it.each([
    ['prompt is too long', 400, ANTHROPIC_CONTEXT_OVERFLOW, 'context-overflow'],
    ['input length and max_tokens', 400, ANTHROPIC_INPUT_AND_MAX_TOKENS, 'context-overflow'],
    ['request_too_large', 413, ANTHROPIC_TOO_LARGE, 'payload-too-large'],
    ['an output format schema', 400, ANTHROPIC_SCHEMA_REJECTED, 'schema-rejected'],
    ['an extra input', 400, ANTHROPIC_UNSUPPORTED, 'unsupported-parameter'],
  ])('classifies an Anthropic %s', (_name, status, body, kind) => {
    expect(classifyError(anthropicError(status, body)).kind).toBe(kind)
    expect(toProviderError(anthropicError(status, body), 'anthropic').kind).toBe(kind)
  })

  it.each([
    [400, OPENAI_CONTEXT_OVERFLOW, 'context-overflow'],
    [400, OPENAI_SCHEMA_REJECTED, 'schema-rejected'],
    [400, OPENAI_UNSUPPORTED_PARAMETER, 'unsupported-parameter'],
    [400, ANTHROPIC_CONTEXT_OVERFLOW, 'context-overflow'],
    [413, ANTHROPIC_TOO_LARGE, 'payload-too-large'],
  ])('classifies the AI SDK APICallError carrying a %i body', (status, body, kind) => {
    expect(classifyError(aiSdkError(status, body)).kind).toBe(kind)
    expect(toProviderError(aiSdkError(status, body), 'ai-sdk').kind).toBe(kind)
  })

  it('classifies a maxTokens above the model output limit as unsupported-parameter, a string too long as payload-too-large', () => {
    const anthropicMax = {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-20250514',
      },
    }
    expect(classifyError(anthropicError(400, anthropicMax)).kind).toBe('unsupported-parameter')
    const openaiMax = {
      error: {
        message: 'max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.',
        type: 'invalid_request_error',
        param: 'max_tokens',
        code: null,
      },
    }
    expect(classifyError(openaiError(400, openaiMax)).kind).toBe('unsupported-parameter')
    const tooLong = {
      error: {
        message:
          "Invalid 'messages[1].content': string too long. Expected a string with maximum length 10485760, but got a string with length 12000000 instead.",
        type: 'invalid_request_error',
        param: 'messages[1].content',
        code: 'string_above_max_length',
      },
    }
    expect(classifyError(openaiError(400, tooLong)).kind).toBe('payload-too-large')
  })

  it('classifies a bare 413 as payload-too-large, whatever its body', () => {
    expect(classifyError({ status: 413, message: '<html>413 Request Entity Too Large</html>' }).kind).toBe('payload-too-large')
    expect(classifyError(new ProviderError('too big', { kind: 'unknown', status: 413 })).kind).toBe('payload-too-large')
  })

  it('reads the code of a ProviderError built without a kind, and keeps a kind its thrower chose', () => {
    expect(classifyError(new ProviderError('x', { kind: 'unknown', status: 400, code: 'context_length_exceeded' })).kind).toBe('context-overflow')
    expect(classifyError(new ProviderError('x', { kind: 'unknown', code: 'unsupported_parameter' })).kind).toBe('unsupported-parameter')
    expect(classifyError(new ProviderError('x', { kind: 'unknown', status: 400, code: 'invalid_request_error' })).kind).toBe('unknown')
    expect(classifyError(new ProviderError('x', { kind: 'timeout', code: 'context_length_exceeded' })).kind).toBe('timeout')
  })

  it('trusts the status over a misleading message: a 500 saying the prompt is too long is http-5xx', () => {
    expect(classifyError({ status: 500, message: 'prompt is too long: 215034 tokens > 200000 maximum' }).kind).toBe('http-5xx')
    expect(classifyError(openaiError(500, { error: { ...OPENAI_CONTEXT_OVERFLOW.error, type: 'server_error' } })).kind).toBe('http-5xx')
    expect(classifyError(anthropicError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Invalid schema for response_format' } })).kind).toBe(
      'http-5xx',
    )
  })

  it('reads the rejection wording of an invalid request before the transport patterns', () => {
    const body = {
      error: { message: "Unsupported parameter: 'timeout' is not supported with this model.", type: 'invalid_request_error', param: 'timeout', code: null },
    }
    expect(classifyError(openaiError(400, body)).kind).toBe('unsupported-parameter')
  })

  it('leaves a 400 that names no rejection as unknown, and a body that is not JSON as the SDK read it', () => {
    expect(
      classifyError(openaiError(400, { error: { message: 'Invalid value for messages[0].role', type: 'invalid_request_error', param: null, code: null } }))
        .kind,
    ).toBe('unknown')
    // The openai client keeps a text body as the message: a 400 of plain text naming nothing stays unknown.
    expect(classifyError(openaiError(400, undefined)).kind).toBe('unknown')
    expect(classifyError({ status: 400, message: '<html><body>Bad Request</body></html>' }).kind).toBe('unknown')
  })

  it('reads only the start of a huge message, and still finds what the provider said there', () => {
    const huge = `prompt is too long: 215034 tokens > 200000 maximum ${'x'.repeat(5_000_000)}`
    expect(classifyError({ status: 400, message: huge }).kind).toBe('context-overflow')
    const buried = `${'x'.repeat(5_000_000)} prompt is too long`
    expect(classifyError({ status: 400, message: buried }).kind).toBe('unknown')
  })

  it('never throws on a hostile error', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
      },
    )
    expect(classifyError(hostile).kind).toBe('unknown')
    expect(classifyError({ status: 400, error: { error: { type: 'invalid_request_error', message: 42 } }, code: {} }).kind).toBe('unknown')
  })
})
