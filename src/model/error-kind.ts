/**
 * What went wrong in an attempt, as rules see it (`scope.errorKind`).
 * Classification uses status codes and error codes first, message patterns last.
 */
export type ErrorKind =
  | 'ok'
  | 'schema-fail'
  | 'tool-args-invalid'
  | 'truncated'
  | 'refusal'
  | 'malformed-response'
  | 'rate-limit'
  | 'timeout'
  | 'http-5xx'
  | 'network'
  | 'circuit-open'
  | 'aborted'
  | 'budget-exceeded'
  | 'auth'
  | 'context-overflow'
  | 'schema-rejected'
  | 'unsupported-parameter'
  | 'payload-too-large'
  | 'unknown'

/** Every {@link ErrorKind}, in the order above (a type test checks that none is missing). */
export const ERROR_KINDS = [
  'ok',
  'schema-fail',
  'tool-args-invalid',
  'truncated',
  'refusal',
  'malformed-response',
  'rate-limit',
  'timeout',
  'http-5xx',
  'network',
  'circuit-open',
  'aborted',
  'budget-exceeded',
  'auth',
  'context-overflow',
  'schema-rejected',
  'unsupported-parameter',
  'payload-too-large',
  'unknown',
] as const satisfies readonly ErrorKind[]

/**
 * Failures worth retrying as they are: rate limits, 5xx, timeouts, network errors, and answers of the
 * wrong shape (a proxy's HTML page, an empty body), which say nothing about the request.
 */
export const TRANSIENT_KINDS: readonly ErrorKind[] = Object.freeze(['rate-limit', 'http-5xx', 'timeout', 'network', 'malformed-response'])

const TRANSIENT = new Set<ErrorKind>(TRANSIENT_KINDS)

/** True for the kinds of {@link TRANSIENT_KINDS} (one list, so the two never drift apart). */
export function isTransientKind(kind: ErrorKind): boolean {
  return TRANSIENT.has(kind)
}
