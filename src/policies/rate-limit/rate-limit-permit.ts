/** The answer of {@link SharedRateLimit.acquire}: may one more call go ahead in this window? */
export type RateLimitPermit =
  | {
      readonly allowed: true
      /** Calls left in the current window after this one. */
      readonly remaining: number
    }
  | {
      readonly allowed: false
      /** Time until the current window ends and a new one starts, in ms (at least 1). */
      readonly retryAfterMs: number
    }
