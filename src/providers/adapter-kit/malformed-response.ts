import { ProviderError } from '../../model/provider-error.ts'

/**
 * The error for a provider that answered 2xx with something that is not an answer (a proxy's HTML
 * page, an empty body, JSON of another shape, a stream without a single event of its format): kind
 * `malformed-response`, transient by default, so `retryTransient` and `failoverRule` act on it and
 * no feedback is ever sent about an answer the model never gave.
 *
 * @example
 * if (!Array.isArray(message?.content)) throw malformedResponse('anthropic', 'a Messages API message', message)
 */
export function malformedResponse(provider: string, expected: string, body: unknown): ProviderError {
  return new ProviderError(`${provider}: expected ${expected}, got ${describeBody(body)}`, { kind: 'malformed-response', code: 'malformed_response', provider })
}

/** The error for a stream that ended without a single event of its format (see {@link malformedResponse}). */
export function malformedStream(provider: string, expected: string): ProviderError {
  return new ProviderError(`${provider}: the stream ended without ${expected}`, { kind: 'malformed-response', code: 'malformed_response', provider })
}

const PREVIEW_CHARS = 60

/** A short, bounded description of what arrived instead of an answer. */
function describeBody(body: unknown): string {
  if (body === undefined) return 'an empty body'
  if (body === null) return 'null'
  if (typeof body === 'string') {
    if (body.trim() === '') return 'an empty body'
    const preview = body.length > PREVIEW_CHARS ? `${body.slice(0, PREVIEW_CHARS)}…` : body
    return `a text body starting ${JSON.stringify(preview)}`
  }
  if (Array.isArray(body)) return `an array of ${body.length}`
  if (typeof body === 'object') {
    const keys = Object.keys(body)
    return keys.length === 0 ? 'an empty object' : `an object with keys ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}`
  }
  return `a ${typeof body}`
}
