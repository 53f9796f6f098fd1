/** The three states of a circuit breaker. */
export type BreakerState = 'closed' | 'open' | 'half-open'

/** What a breaker stores per provider (JSON-encoded in the {@link StateStore}). */
export interface BreakerRecord {
  readonly state: BreakerState
  /** Consecutive counted failures since the breaker last closed. */
  readonly failures: number
  /** When the breaker last opened, in ms of the breaker's clock. */
  readonly openedAt: number
  /** Probes admitted and not yet settled (half-open only). */
  readonly probes: number
  /** When the last probe was admitted; a probe older than the cooldown is presumed lost. */
  readonly probeAt: number
  /** Successful probes since the breaker half-opened. */
  readonly successes: number
}

/** A state change, as reported by the `breaker_state` event. */
export interface BreakerTransition {
  readonly provider: string
  readonly from: BreakerState
  readonly to: BreakerState
  readonly failures: number
}

/** The state of a closed breaker with no failures: what an absent key means. */
export const CLOSED: BreakerRecord = Object.freeze({ state: 'closed', failures: 0, openedAt: 0, probes: 0, probeAt: 0, successes: 0 })

/** Decodes a stored record; anything unreadable counts as a fresh, closed breaker. */
export function decodeBreaker(raw: string | undefined): BreakerRecord {
  if (raw === undefined) return CLOSED
  try {
    const r = JSON.parse(raw) as Partial<BreakerRecord>
    if (r.state !== 'closed' && r.state !== 'open' && r.state !== 'half-open') return CLOSED
    return { ...CLOSED, ...r }
  } catch {
    return CLOSED
  }
}

/** Encodes a record for the store. */
export function encodeBreaker(record: BreakerRecord): string {
  return JSON.stringify(record)
}
