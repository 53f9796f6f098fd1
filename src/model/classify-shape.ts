import { rejectionOfCodes, rejectionOfMessage, saysInvalidRequest } from './classify-rejection.ts'
import type { ErrorKind } from './error-kind.ts'
import { type HeaderSource, longestWait, retryAfterMs } from './retry-after.ts'

/** What a thrown provider error says about itself once classified. */
export interface ClassifiedError {
  readonly kind: ErrorKind
  readonly status: number | undefined
  readonly retryAfterMs: number | undefined
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
])
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
/** Error class names of the openai and @anthropic-ai/sdk clients that carry no status. */
const SDK_NAMES: Readonly<Record<string, ErrorKind>> = {
  APIConnectionTimeoutError: 'timeout',
  APIConnectionError: 'network',
  APIUserAbortError: 'aborted',
  RateLimitError: 'rate-limit',
  InternalServerError: 'http-5xx',
  AuthenticationError: 'auth',
  PermissionDeniedError: 'auth',
}
/** Error `type`s of provider error bodies (Anthropic's `overloaded_error`, OpenAI's `server_error`, ...). */
const BODY_TYPES: Readonly<Record<string, ErrorKind>> = {
  overloaded_error: 'http-5xx',
  api_error: 'http-5xx',
  server_error: 'http-5xx',
  rate_limit_error: 'rate-limit',
  rate_limit_exceeded: 'rate-limit',
  insufficient_quota: 'rate-limit',
  timeout_error: 'timeout',
  authentication_error: 'auth',
  permission_error: 'auth',
  invalid_api_key: 'auth',
}
/** Longest message read as an error body (older SDKs put an SSE error event's JSON there). */
const MAX_BODY_MESSAGE = 10_000

const UNKNOWN: ClassifiedError = Object.freeze({ kind: 'unknown', status: undefined, retryAfterMs: undefined })

/**
 * Classifies a raw thrown error by its shape, the one classifier of the gate and the provider
 * adapters: the HTTP status (`status`, `statusCode`, else an error status of its `response` or its
 * `cause`) first, then error codes (its own and its
 * cause's), the error body's `type`, the SDK class name, and message patterns last. Retry-after
 * comes from `retryAfterMs` or the headers (`headers`, `responseHeaders`, `response.headers`, or
 * those of its cause). Never throws: a value that cannot be read (a Proxy whose traps throw,
 * getters that throw) is kind `unknown`.
 */
export function classifyShape(error: unknown): ClassifiedError {
  if (typeof error !== 'object' || error === null) return UNKNOWN
  try {
    const e = error as Record<string, unknown>
    const status = finite(e['status']) ?? finite(e['statusCode']) ?? nestedStatus(e)
    const retryAfter = readRetryAfter(e)
    return { kind: (status === undefined ? undefined : kindOfStatus(status)) ?? kindOfShape(e, status), status, retryAfterMs: retryAfter }
  } catch {
    return UNKNOWN
  }
}

/**
 * The error `type` of an SDK error body as the provider wrote it: Anthropic's nested
 * `error.error.type`, then `error.type` (or the AI SDK's `data`), then a JSON body in the message.
 */
export function bodyTypeOf(error: Record<string, unknown>): string | undefined {
  const body = record(error['error'] ?? error['data'])
  const nested = record(body?.['error'])?.['type']
  if (typeof nested === 'string') return nested
  if (typeof body?.['type'] === 'string') return body['type']
  return typeInMessage(error['message'])
}

/** The kind an HTTP status says on its own (429, 408, 409, 413, 401/403, 5xx), `undefined` for any other status. */
export function kindOfStatus(status: number): ErrorKind | undefined {
  if (status === 429) return 'rate-limit'
  if (status === 408) return 'timeout'
  // A lock timeout, as the openai, Anthropic and AI SDK clients all read a 409 (they retry it).
  if (status === 409) return 'timeout'
  // Anthropic's documented 413 `request_too_large`; OpenAI's edge answers 413 the same way.
  if (status === 413) return 'payload-too-large'
  // Credentials refused or not allowed: retrying the same provider cannot help, another may.
  if (status === 401 || status === 403) return 'auth'
  if (status === 529 || (status >= 500 && status <= 599)) return 'http-5xx'
  return undefined
}

function kindOfShape(e: Record<string, unknown>, status: number | undefined): ErrorKind {
  const name = typeof e['name'] === 'string' ? e['name'] : ''
  const code = typeof e['code'] === 'string' ? e['code'] : ''
  const causeCode = record(e['cause'])?.['code']
  const cause = typeof causeCode === 'string' ? causeCode : ''
  if (name === 'TimeoutError' || TIMEOUT_CODES.has(code) || TIMEOUT_CODES.has(cause)) return 'timeout'
  if (name === 'AbortError' || code === 'ABORT_ERR') return 'aborted'
  if (NETWORK_CODES.has(code) || NETWORK_CODES.has(cause)) return 'network'
  if (code === 'rate_limit_exceeded' || code === 'insufficient_quota') return 'rate-limit'
  if (code === 'invalid_api_key') return 'auth'
  // What the provider wrote wins over the class the SDK wrapped it in (an old Anthropic SDK throws
  // an SSE error event as an APIConnectionError).
  const byBody = kindOfBody(e)
  if (byBody !== undefined) return byBody
  // A request the provider refused as written (context overflow, a rejected schema, ...): by its
  // codes, then, for a request the status or body calls invalid, by the provider's wording.
  const invalid = saysInvalidRequest(e, status)
  const rejected = rejectionOfCodes(e) ?? (invalid ? rejectionOfMessage(e) : undefined)
  if (rejected !== undefined) return rejected
  // The openai client leaves `name` as 'Error'; its class name still tells.
  const ctor = typeof e['constructor'] === 'function' ? (e['constructor'] as { name?: unknown }).name : undefined
  const sdkName = Object.hasOwn(SDK_NAMES, name) ? name : typeof ctor === 'string' && Object.hasOwn(SDK_NAMES, ctor) ? ctor : undefined
  const bySdk = sdkName === undefined ? undefined : SDK_NAMES[sdkName]
  if (bySdk !== undefined) return bySdk
  // A client error its status names (4xx; 408 and 429 are read above) is about the request, never
  // transient, whatever its wording says ("Invalid value for 'timeout'", model "timeout-v2" not found).
  if (status !== undefined && status >= 400 && status <= 499) return (invalid ? undefined : rejectionOfMessage(e)) ?? 'unknown'
  const message = typeof e['message'] === 'string' ? e['message'].toLowerCase() : ''
  if (/rate.?limit|too many requests/.test(message)) return 'rate-limit'
  if (/timed? ?out|timeout/.test(message)) return 'timeout'
  if (/overloaded|internal server error|bad gateway|service unavailable/.test(message)) return 'http-5xx'
  if (/socket hang up|econnreset|econnrefused|enotfound|network|fetch failed|terminated|connection (reset|refused|error)/.test(message)) return 'network'
  return (invalid ? undefined : rejectionOfMessage(e)) ?? 'unknown'
}

/** The first known error `type` among the body's fields (`error.error.type`, `error.type`, `error.code`, `type`). */
function kindOfBody(e: Record<string, unknown>): ErrorKind | undefined {
  const body = record(e['error'] ?? e['data'])
  for (const t of [record(body?.['error'])?.['type'], body?.['type'], body?.['code'], e['type'], typeInMessage(e['message'])]) {
    if (typeof t === 'string' && Object.hasOwn(BODY_TYPES, t)) return BODY_TYPES[t]
  }
  return undefined
}

function typeInMessage(message: unknown): string | undefined {
  if (typeof message !== 'string' || !message.startsWith('{') || message.length > MAX_BODY_MESSAGE) return undefined
  try {
    const inner = record(record(JSON.parse(message))?.['error'])?.['type']
    return typeof inner === 'string' ? inner : undefined
  } catch {
    return undefined
  }
}

/**
 * The error status of the response an HTTP client's error carries (axios and ky: `response.status`,
 * got: `response.statusCode`), else of the error it wraps (`cause`): where the retry-after headers
 * are read too. Only an error status (400-599) counts: a wrapped 200 says nothing about the failure.
 */
function nestedStatus(e: Record<string, unknown>): number | undefined {
  for (const holder of [record(e['response']), record(e['cause'])]) {
    const status = finite(holder?.['status']) ?? finite(holder?.['statusCode'])
    if (status !== undefined && status >= 400 && status <= 599) return status
  }
  return undefined
}

/** `retryAfterMs` on the error, else the retry-after headers of the error or of its cause. */
function readRetryAfter(e: Record<string, unknown>): number | undefined {
  const direct = e['retryAfterMs']
  if (typeof direct === 'number' && Number.isFinite(direct) && direct >= 0) return longestWait(direct)
  const cause = record(e['cause'])
  const headers = e['headers'] ?? e['responseHeaders'] ?? record(e['response'])?.['headers'] ?? cause?.['responseHeaders'] ?? cause?.['headers']
  return retryAfterMs(headers as HeaderSource)
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}
