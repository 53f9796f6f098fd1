import type { ErrorKind } from '../../model/error-kind.ts'
import { isProviderError, ProviderError } from '../../model/provider-error.ts'
import { parseJsonSafe } from '../../validation/json/parse-json-safe.ts'
import { retryAfterMs, type HeaderSource } from './retry-after.ts'

/**
 * Maps an SDK error to a {@link ProviderError}, duck-typed so the SDKs stay optional peers: the
 * Stainless clients (`openai`, `@anthropic-ai/sdk`: `status`, `headers`, `error.type`, named
 * connection/timeout/abort classes) and the AI SDK's `APICallError` (`statusCode`,
 * `responseHeaders`). Status first, then the error body's type, then the class name. A body the
 * SDK could not read (a 2xx "error", a JSON syntax error, the AI SDK's parse and type-validation
 * errors) is `malformed-response`: the provider answered, but not with an answer.
 */
export function toProviderError(error: unknown, provider: string, signal?: AbortSignal): ProviderError {
  if (isProviderError(error)) return error
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>
  const message = error instanceof Error ? error.message : String(error)
  const status = numberOr(e['status']) ?? numberOr(e['statusCode'])
  // Wrapping errors (the AI SDK gateway's) keep the HTTP details on their cause.
  const cause = (typeof e['cause'] === 'object' && e['cause'] !== null ? e['cause'] : {}) as Record<string, unknown>
  const headers = (e['headers'] ?? e['responseHeaders'] ?? cause['responseHeaders'] ?? cause['headers']) as HeaderSource
  const body = (e['error'] ?? e['data']) as Record<string, unknown> | undefined
  // Anthropic nests the error type: {type: 'error', error: {type: 'overloaded_error'}}.
  // Older SDKs put an SSE error event's JSON in the message instead.
  const bodyType = nestedType(body) ?? (typeof body?.['type'] === 'string' ? body['type'] : undefined) ?? typeInMessage(message)
  const code = typeof e['code'] === 'string' ? e['code'] : bodyType
  const kind = signal?.aborted === true ? 'aborted' : kindOf(status, bodyType, e, message)
  const after = retryAfterMs(headers)
  return new ProviderError(`${provider}: ${message}`, {
    kind,
    ...(status !== undefined ? { status } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(after !== undefined ? { retryAfterMs: after } : {}),
    provider,
    cause: error,
  })
}

/**
 * Errors the SDKs raise when a body is not what their format promised (the AI SDK gateway's
 * `GatewayResponseError` even when reading the body crashed, with a status it made up).
 */
const UNREADABLE_BODY = new Set([
  'SyntaxError',
  'AI_JSONParseError',
  'AI_TypeValidationError',
  'AI_EmptyResponseBodyError',
  'AI_InvalidResponseDataError',
  'GatewayResponseError',
])

function kindOf(status: number | undefined, bodyType: string | undefined, e: Record<string, unknown>, message: string): ErrorKind {
  if ((status !== undefined && status >= 200 && status <= 299) || unreadableBody(e)) return 'malformed-response'
  if (status === 429) return 'rate-limit'
  if (status === 408) return 'timeout'
  if (status !== undefined && (status === 529 || (status >= 500 && status <= 599))) return 'http-5xx'
  // Errors that arrive inside an SSE stream carry no status, only the error body's type.
  if (bodyType === 'rate_limit_error' || bodyType === 'rate_limit_exceeded') return 'rate-limit'
  if (bodyType === 'overloaded_error' || bodyType === 'api_error' || bodyType === 'server_error') return 'http-5xx'
  if (status !== undefined) return 'unknown'
  const name = typeof e['name'] === 'string' ? e['name'] : ''
  if (name === 'APIConnectionTimeoutError' || name === 'TimeoutError') return 'timeout'
  if (name === 'APIUserAbortError' || name === 'AbortError') return 'aborted'
  if (name === 'APIConnectionError') return 'network'
  const lower = message.toLowerCase()
  if (/timed? ?out|timeout/.test(lower)) return 'timeout'
  if (/socket hang up|econnreset|econnrefused|network|fetch failed|terminated|connection (reset|refused|error)/.test(lower)) return 'network'
  return 'unknown'
}

/**
 * The error, or one of its first causes, says the body could not be parsed or had the wrong shape
 * (node-fetch, used by older Stainless SDKs, says `type: 'invalid-json'`).
 */
function unreadableBody(e: Record<string, unknown>): boolean {
  let current: unknown = e
  for (let depth = 0; depth < 3 && typeof current === 'object' && current !== null; depth++) {
    const { name, type } = current as { name?: unknown; type?: unknown }
    if ((typeof name === 'string' && UNREADABLE_BODY.has(name)) || type === 'invalid-json') return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

function typeInMessage(message: string): string | undefined {
  if (!message.startsWith('{')) return undefined
  const parsed = parseJsonSafe(message)
  return parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? nestedType(parsed.value as Record<string, unknown>) : undefined
}

function nestedType(body: Record<string, unknown> | undefined): string | undefined {
  const inner = body?.['error'] as Record<string, unknown> | undefined
  return typeof inner?.['type'] === 'string' ? inner['type'] : undefined
}

function numberOr(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}
