/**
 * What went wrong in an attempt, as rules see it (`scope.errorKind`).
 * Classification uses status codes and error codes first, message patterns last.
 */
export const ERROR_KINDS = [
  'ok',
  'schema-fail',
  'tool-args-invalid',
  'truncated',
  'rate-limit',
  'timeout',
  'http-5xx',
  'network',
  'circuit-open',
  'aborted',
  'budget-exceeded',
  'unknown',
] as const

export type ErrorKind = (typeof ERROR_KINDS)[number]

/** Transport failures worth retrying: rate limits, 5xx, timeouts, network errors. */
export const TRANSIENT_KINDS: readonly ErrorKind[] = Object.freeze(['rate-limit', 'http-5xx', 'timeout', 'network'])

/** True for the transport failures of {@link TRANSIENT_KINDS}. */
export function isTransientKind(kind: ErrorKind): boolean {
  return kind === 'rate-limit' || kind === 'http-5xx' || kind === 'timeout' || kind === 'network'
}
