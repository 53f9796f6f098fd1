/**
 * Scenario (e) for peers without provider failover: the user's own try/catch, asking the second
 * provider when the first answers with a 429.
 */
export function failover(primary: () => Promise<unknown>, secondary: () => Promise<unknown>): () => Promise<unknown> {
  return async () => {
    try {
      return await primary()
    } catch (error) {
      if (isRateLimited(error)) return secondary()
      throw error
    }
  }
}

/** True for an error carrying HTTP status 429 (what every hand-written failover checks). */
export function isRateLimited(error: unknown): boolean {
  return (error as { status?: number } | null)?.status === 429
}
