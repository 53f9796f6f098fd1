import { ERROR_KINDS, type ErrorKind } from '../model/error-kind.ts'
import { isProviderError } from '../model/provider-error.ts'

/** What the gate knows about a provider error after classification. */
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
}

const KNOWN_KINDS: ReadonlySet<string> = new Set(ERROR_KINDS)
const UNKNOWN: ClassifiedError = Object.freeze({ kind: 'unknown', status: undefined, retryAfterMs: undefined })

/**
 * Classifies a thrown provider error: an already classified {@link ProviderError} first, then the
 * HTTP status, then error codes and names, and message patterns last. Never throws: a value that
 * cannot be read (a Proxy whose traps throw, getters that throw) is kind `unknown`.
 */
export function classifyError(error: unknown): ClassifiedError {
  try {
    return classify(error)
  } catch {
    return UNKNOWN
  }
}

function classify(error: unknown): ClassifiedError {
  if (isProviderError(error)) {
    // A branded look-alike may carry any kind: only the known ones are trusted.
    const kind = KNOWN_KINDS.has(error.kind) ? error.kind : 'unknown'
    return { kind, status: finite(error.status), retryAfterMs: nonNegative(error.retryAfterMs) }
  }
  if (typeof error !== 'object' || error === null) return UNKNOWN
  const e = error as Record<string, unknown>
  const status = numberField(e, 'status') ?? numberField(e, 'statusCode')
  const retryAfterMs = readRetryAfter(e)
  const byStatus = status === undefined ? undefined : kindOfStatus(status)
  if (byStatus !== undefined) return { kind: byStatus, status, retryAfterMs }
  return { kind: kindOfShape(e), status, retryAfterMs }
}

function kindOfStatus(status: number): ErrorKind | undefined {
  if (status === 429) return 'rate-limit'
  if (status === 408) return 'timeout'
  if (status === 529 || (status >= 500 && status <= 599)) return 'http-5xx'
  return undefined
}

function kindOfShape(e: Record<string, unknown>): ErrorKind {
  const name = typeof e['name'] === 'string' ? e['name'] : ''
  const code = typeof e['code'] === 'string' ? e['code'] : ''
  const causeCode =
    typeof (e['cause'] as Record<string, unknown> | undefined)?.['code'] === 'string' ? String((e['cause'] as Record<string, unknown>)['code']) : ''
  if (name === 'TimeoutError' || TIMEOUT_CODES.has(code) || TIMEOUT_CODES.has(causeCode)) return 'timeout'
  if (name === 'AbortError' || code === 'ABORT_ERR') return 'aborted'
  if (NETWORK_CODES.has(code) || NETWORK_CODES.has(causeCode)) return 'network'
  if (code === 'rate_limit_exceeded' || code === 'insufficient_quota') return 'rate-limit'
  // The openai client leaves `name` as 'Error'; its class name still tells.
  const ctor = typeof e['constructor'] === 'function' ? (e['constructor'] as { name?: unknown }).name : undefined
  const sdkName = Object.hasOwn(SDK_NAMES, name) ? name : typeof ctor === 'string' && Object.hasOwn(SDK_NAMES, ctor) ? ctor : undefined
  const bySdk = sdkName === undefined ? undefined : SDK_NAMES[sdkName]
  if (bySdk !== undefined) return bySdk
  const byBody = bodyType(e)
  if (byBody !== undefined) return byBody
  const message = typeof e['message'] === 'string' ? e['message'].toLowerCase() : ''
  if (/rate.?limit|too many requests/.test(message)) return 'rate-limit'
  if (/timed? ?out|timeout/.test(message)) return 'timeout'
  if (/overloaded|internal server error|bad gateway|service unavailable/.test(message)) return 'http-5xx'
  if (/socket hang up|network|fetch failed|connection (reset|refused|error)/.test(message)) return 'network'
  return 'unknown'
}

/** The error `type` of an SDK error body: `error.type`, `error.error.type` (Anthropic) or `type`. */
function bodyType(e: Record<string, unknown>): ErrorKind | undefined {
  const body = e['error'] as Record<string, unknown> | undefined
  const inner = typeof body === 'object' && body !== null ? (body['error'] as Record<string, unknown> | undefined) : undefined
  for (const t of [inner?.['type'], typeof body === 'object' && body !== null ? body['type'] : undefined, body?.['code'], e['type']]) {
    if (typeof t === 'string' && Object.hasOwn(BODY_TYPES, t)) return BODY_TYPES[t]
  }
  return undefined
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

function nonNegative(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined
}

function numberField(e: Record<string, unknown>, key: string): number | undefined {
  return finite(e[key])
}

/** Reads `retry-after-ms` / `retry-after` (seconds or an HTTP date) from an error's headers. */
function readRetryAfter(e: Record<string, unknown>): number | undefined {
  const direct = nonNegative(e['retryAfterMs'])
  if (direct !== undefined) return direct
  const headers = e['headers'] ?? (e['response'] as Record<string, unknown> | undefined)?.['headers']
  const get = (key: string): string | undefined => {
    if (headers === null || typeof headers !== 'object') return undefined
    const h = headers as { get?: (k: string) => string | null } & Record<string, unknown>
    const v = typeof h.get === 'function' ? h.get(key) : h[key]
    return typeof v === 'string' ? v : undefined
  }
  return parseRetryAfter(get('retry-after-ms'), get('retry-after'))
}

/** Parses retry-after headers into milliseconds; `retry-after-ms` wins. */
export function parseRetryAfter(ms: string | undefined, seconds: string | undefined, now: number = Date.now()): number | undefined {
  if (ms !== undefined) {
    const n = Number(ms)
    if (Number.isFinite(n) && n >= 0) return n
  }
  if (seconds !== undefined) {
    const n = Number(seconds)
    if (Number.isFinite(n) && n >= 0) return n * 1000
    const date = Date.parse(seconds)
    if (Number.isFinite(date)) return Math.max(0, date - now)
  }
  return undefined
}
