import { type ClassifiedError, classifyShape, kindOfStatus } from '../model/classify-shape.ts'
import { rejectionOfCodes } from '../model/classify-rejection.ts'
import { ERROR_KINDS, type ErrorKind } from '../model/error-kind.ts'
import { isProviderError } from '../model/provider-error.ts'
import { longestWait } from '../model/retry-after.ts'

export type { ClassifiedError } from '../model/classify-shape.ts'

const KNOWN_KINDS: ReadonlySet<string> = new Set(ERROR_KINDS)
const UNKNOWN: ClassifiedError = Object.freeze({ kind: 'unknown', status: undefined, retryAfterMs: undefined })

/**
 * Classifies a thrown provider error: an already classified {@link ProviderError} keeps its kind
 * (one of kind `unknown` takes the kind of its `status`, when that says one: 401/403 is `auth`, 413
 * `payload-too-large`; else of its `code`: `context_length_exceeded` is `context-overflow`),
 * anything else is classified by its shape (HTTP status, then error codes and names, message
 * patterns last: see `classifyShape`). Never throws: a value that cannot be read (a Proxy whose
 * traps throw, getters that throw) is kind `unknown`.
 */
export function classifyError(error: unknown): ClassifiedError {
  try {
    if (!isProviderError(error)) return classifyShape(error)
    // A branded look-alike may carry any kind: only the known ones are trusted.
    const known = KNOWN_KINDS.has(error.kind) ? error.kind : 'unknown'
    const status = finite(error.status)
    // `unknown` is what a ProviderError built without a kind says: its status still tells (a 401 is
    // `auth`), then its code (`context_length_exceeded` is `context-overflow`).
    const kind: ErrorKind =
      known === 'unknown' ? ((status === undefined ? undefined : kindOfStatus(status)) ?? rejectionOfCodes({ code: error.code }) ?? known) : known
    return { kind, status, retryAfterMs: nonNegative(error.retryAfterMs) }
  } catch {
    return UNKNOWN
  }
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/** A wait a branded look-alike carries, as a timer can hold it (see `longestWait`). */
function nonNegative(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? longestWait(v) : undefined
}
