import type { Usage } from '../../model/usage.ts'
import { isTokenCount } from '../../policies/usage-estimate.ts'

/**
 * A token count as the provider reported it, or `NaN` when it reported none or one that is no
 * count (a string, a negative or infinite number): never 0, which would make the call free. The
 * gate estimates a `NaN` count from the request and the answer and marks the usage `estimated`.
 */
export function tokenCount(value: unknown): number {
  return isTokenCount(value) ? value : Number.NaN
}

/** An optional count (cache reads and writes): `undefined` when absent, else {@link tokenCount}. */
export function optionalTokenCount(value: unknown): number | undefined {
  return value === undefined || value === null ? undefined : tokenCount(value)
}

/** The usage of an answer that reported none: both counts `NaN`, for the gate to estimate. */
export const MISSING_USAGE: Usage = Object.freeze({ inputTokens: Number.NaN, outputTokens: Number.NaN })
