import { bodyTypeOf, classifyShape } from '../../model/classify-shape.ts'
import type { ErrorKind } from '../../model/error-kind.ts'
import { isProviderError, ProviderError } from '../../model/provider-error.ts'

/**
 * Maps an SDK error to a {@link ProviderError}, duck-typed so the SDKs stay optional peers: the
 * Stainless clients (`openai`, `@anthropic-ai/sdk`: `status`, `headers`, `error.type`, named
 * connection/timeout/abort classes) and the AI SDK's `APICallError` (`statusCode`,
 * `responseHeaders`) are classified by the gate's own shape classifier (`classifyShape`). A body
 * the SDK could not read (a 2xx "error", a JSON syntax error, the AI SDK's parse and
 * type-validation errors) is `malformed-response`: the provider answered, but not with an answer,
 * unless the transport cut it while it was read (`network`, `timeout`).
 * Never throws: a thrown value that cannot be read (a proxy, a getter that throws) is kind `unknown`.
 */
export function toProviderError(error: unknown, provider: string, signal?: AbortSignal): ProviderError {
  if (isProviderError(error)) return error
  const message = messageOf(error)
  const thrown = (typeof error === 'object' && error !== null ? error : { message }) as Record<string, unknown>
  // What the AI SDK gateway's transport said, under the gateway's own wrapper (see `gatewayCause`).
  const inner = readSafely(() => gatewayCause(thrown), undefined)
  const e = inner ?? thrown
  const shape = classifyShape(e)
  const { status, retryAfterMs } = shape
  const code = readSafely(() => (typeof e['code'] === 'string' ? e['code'] : bodyTypeOf(e)), undefined)
  const unanswered =
    (status !== undefined && status >= 200 && status <= 299) || readSafely(() => unreadableBody(e), false) || (inner !== undefined && shape.kind === 'unknown')
  // A body cut by the transport (a reset in the middle of a stream) is a network fault, not a body of the wrong shape.
  const kind: ErrorKind =
    signal?.aborted === true ? 'aborted' : unanswered ? (readSafely(() => transportCause(e), undefined) ?? 'malformed-response') : shape.kind
  return new ProviderError(`${provider}: ${message}`, {
    kind,
    ...(status !== undefined ? { status } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
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

/**
 * `network` or `timeout` when one of the error's first causes says the transport failed while the
 * body was read (the AI SDK's "Failed to process successful response" over undici's `terminated`).
 */
function transportCause(e: Record<string, unknown>): ErrorKind | undefined {
  let current: unknown = e['cause']
  for (let depth = 0; depth < 3 && typeof current === 'object' && current !== null; depth++) {
    const kind = classifyShape(current).kind
    if (kind === 'network' || kind === 'timeout') return kind
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * The error under the AI SDK gateway's `GatewayResponseError`, which wraps whatever came back in an
 * error body that is not the gateway's own (a proxy's 413 or 502 page, an empty 503, a reset
 * connection) with a status it makes up when the transport gave none: the transport's own error
 * (an `APICallError` with the real status, or the network failure) says what happened. A wrapper
 * without one is a body the gateway could not read (`malformed-response`).
 */
function gatewayCause(e: Record<string, unknown>): Record<string, unknown> | undefined {
  if (e['name'] !== 'GatewayResponseError') return undefined
  const cause = e['cause']
  return typeof cause === 'object' && cause !== null ? (cause as Record<string, unknown>) : undefined
}

const PREVIEW_CHARS = 200

/**
 * What a thrown value says: an `Error`'s message, else the `message` of an object (the AI SDK's
 * providers put a stream's error event there as a plain object), else its JSON text, cut short.
 */
function messageOf(error: unknown): string {
  return readSafely(() => {
    if (error instanceof Error) return error.message
    if (typeof error !== 'object' || error === null) return String(error)
    const message = (error as { message?: unknown }).message
    if (typeof message === 'string' && message !== '') return message
    const text = JSON.stringify(error) ?? Object.prototype.toString.call(error)
    return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text
  }, 'an error that cannot be read')
}

/** `read()`, or `fallback` when reading throws. */
function readSafely<T>(read: () => T, fallback: T): T {
  try {
    return read()
  } catch {
    return fallback
  }
}
