/**
 * Token usage of one model call. A provider that does not know a count gives `NaN` (the built-in
 * adapters do, for a count the answer lacks or reports as no count): never 0, which would make the
 * call free. The gate estimates such a count and marks the usage `estimated`, so the usage on
 * results, events and scopes is always finite.
 */
export interface Usage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens?: number
  readonly cacheWriteTokens?: number
  /**
   * Some count was missing or not a usable number in the provider's report and was estimated (at 4
   * characters per token of the request and the answer) rather than taken as 0.
   */
  readonly estimated?: boolean
}

/** The usage of nothing at all. */
export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 })

/** Adds two usages; cache fields are kept only when either side reports them, `estimated` when either is. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  }
  if (a.cacheReadTokens !== undefined || b.cacheReadTokens !== undefined) {
    sum.cacheReadTokens = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0)
  }
  if (a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined) {
    sum.cacheWriteTokens = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0)
  }
  if (a.estimated === true || b.estimated === true) sum.estimated = true
  return sum
}
