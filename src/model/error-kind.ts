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
