import { type ClassifiedError, classifyShape } from '../model/classify-shape.ts'
import { ERROR_KINDS } from '../model/error-kind.ts'
import { isProviderError } from '../model/provider-error.ts'

export type { ClassifiedError } from '../model/classify-shape.ts'

const KNOWN_KINDS: ReadonlySet<string> = new Set(ERROR_KINDS)
const UNKNOWN: ClassifiedError = Object.freeze({ kind: 'unknown', status: undefined, retryAfterMs: undefined })

/**
 * Classifies a thrown provider error: an already classified {@link ProviderError} keeps its kind,
 * anything else is classified by its shape (HTTP status, then error codes and names, message
 * patterns last: see `classifyShape`). Never throws: a value that cannot be read (a Proxy whose
 * traps throw, getters that throw) is kind `unknown`.
 */
export function classifyError(error: unknown): ClassifiedError {
  try {
    if (!isProviderError(error)) return classifyShape(error)
    // A branded look-alike may carry any kind: only the known ones are trusted.
    const kind = KNOWN_KINDS.has(error.kind) ? error.kind : 'unknown'
    return { kind, status: finite(error.status), retryAfterMs: nonNegative(error.retryAfterMs) }
  } catch {
    return UNKNOWN
  }
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

function nonNegative(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined
}
