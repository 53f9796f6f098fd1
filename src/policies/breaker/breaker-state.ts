import { shownValue } from '../../model/describe-value.ts'
import { markUnreadable } from '../../store/unreadable-value.ts'

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

const NUMBERS = ['failures', 'openedAt', 'probes', 'probeAt', 'successes'] as const

/**
 * Decodes a stored record (`undefined`, an absent key, is a fresh closed breaker). A record that
 * cannot be read (not JSON, no known state, a count that is not a finite number) throws a
 * `TypeError` naming `key`: read as a fresh breaker, an open one would let every call through
 * unnoticed. The breaker is advisory, so the gate lets the call through and hears the failure.
 */
export function decodeBreaker(raw: string | undefined, key = 'the breaker'): BreakerRecord {
  if (raw === undefined) return CLOSED
  let r: Partial<Record<keyof BreakerRecord, unknown>>
  try {
    r = JSON.parse(raw) as typeof r
  } catch {
    throw unreadable(key, raw, 'not JSON')
  }
  if (typeof r !== 'object' || r === null) throw unreadable(key, raw, 'not an object')
  if (r.state !== 'closed' && r.state !== 'open' && r.state !== 'half-open') throw unreadable(key, raw, 'no state closed, open or half-open')
  for (const field of NUMBERS) {
    const n = r[field]
    if (n !== undefined && (typeof n !== 'number' || !Number.isFinite(n))) throw unreadable(key, raw, `${field} is not a finite number`)
  }
  return { ...CLOSED, ...(r as Partial<BreakerRecord>) }
}

function unreadable(key: string, raw: string, why: string): TypeError {
  return markUnreadable(new TypeError(`circuitBreaker: the record of ${JSON.stringify(key)} cannot be read (${why}): ${shownValue(raw)}`))
}

/** Encodes a record for the store. */
export function encodeBreaker(record: BreakerRecord): string {
  return JSON.stringify(record)
}
