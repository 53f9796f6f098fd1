import { nonNegativeNumber, positiveInteger } from '../../model/assert-number.ts'
import { memoryStore } from '../../store/memory-store.ts'
import { STATE_STORE_METHODS, type StateStore } from '../../store/state-store.ts'
import { syncStore, type SyncStateStore } from '../../store/sync-store.ts'
import { assertMethods, optionsObject } from '../../model/options-object.ts'
import type { BreakerPermit, BreakerResult } from './breaker-permit.ts'
import { decodeBreaker, encodeBreaker, type BreakerRecord, type BreakerTransition } from './breaker-state.ts'

/** Options of {@link circuitBreaker}. */
export interface CircuitBreakerOptions {
  /** Consecutive counted failures that open the breaker. @default 5 */
  readonly failureThreshold?: number
  /** How long an open breaker rejects calls before it half-opens, in ms. @default 30_000 */
  readonly cooldownMs?: number
  /** Calls admitted at once while half-open. @default 1 */
  readonly halfOpenMaxProbes?: number
  /** Successful probes that close a half-open breaker. @default 1 */
  readonly successesToClose?: number
  /** Where the state lives; share one store to share breakers across gates or processes. @default memoryStore() */
  readonly store?: StateStore
  /** Prefix of the store keys (one key per provider name). @default 'rg:breaker:' */
  readonly keyPrefix?: string
  /**
   * Clock in ms. Wall-clock by default because a shared store compares times across processes.
   * @default Date.now
   */
  readonly now?: () => number
}

/** A circuit breaker per provider name, with its state in a {@link StateStore}. */
export interface CircuitBreaker {
  /** Asks whether a call to `provider` may go ahead; an open breaker answers at once, without waiting. */
  acquire(provider: string): Promise<BreakerPermit>
  /** Records how an admitted call ended; returns the state change it caused, if any. */
  record(provider: string, permit: BreakerPermit, result: BreakerResult): Promise<BreakerTransition | undefined>
  /** The stored state of `provider`'s breaker (an open breaker past its cooldown half-opens on the next acquire). */
  state(provider: string): Promise<BreakerRecord>
}

// Compare-and-set retries under contention; past this the breaker keeps the state it read.
const MAX_CAS_ROUNDS = 32
const ADMITTED: BreakerPermit = Object.freeze({ allowed: true, probe: false, transition: undefined })
const PROBE: BreakerPermit = Object.freeze({ allowed: true, probe: true, transition: undefined })

const isClean = (r: BreakerRecord): boolean => r.state === 'closed' && r.failures === 0

/**
 * Creates a circuit breaker: after `failureThreshold` consecutive transport failures of a provider its
 * breaker opens and calls to it fail at once with kind `circuit-open`; after `cooldownMs` it
 * half-opens and admits `halfOpenMaxProbes` probes; `successesToClose` successful probes close it, a
 * failed probe opens it again. Aborted calls never count.
 *
 * @example
 * createGate({ providers: [primary, backup], breaker: { failureThreshold: 3, cooldownMs: 10_000 }, postDecide: [failoverRule()] })
 */
export function circuitBreaker(given?: CircuitBreakerOptions): CircuitBreaker {
  const options = optionsObject(given, 'circuitBreaker')
  if (options.store !== undefined) assertMethods(options.store, STATE_STORE_METHODS, 'circuitBreaker: store', 'a StateStore')
  const threshold = positiveInteger(options.failureThreshold, 'circuitBreaker: failureThreshold', 5)
  const cooldownMs = nonNegativeNumber(options.cooldownMs, 'circuitBreaker: cooldownMs', 30_000)
  const maxProbes = positiveInteger(options.halfOpenMaxProbes, 'circuitBreaker: halfOpenMaxProbes', 1)
  const toClose = positiveInteger(options.successesToClose, 'circuitBreaker: successesToClose', 1)
  const store = options.store ?? memoryStore()
  const prefix = options.keyPrefix ?? 'rg:breaker:'
  const now = options.now ?? Date.now
  // With its own store nobody else writes this breaker's records, so it knows which providers are
  // not clean (closed, no failures) and skips the store for the others: a clean closed breaker
  // admits a call and ignores a success without a read or a write. A store that was passed in may be
  // shared (other gates, other processes): a success there must still reset failures others counted,
  // so every acquire and record goes to the store.
  const own = options.store === undefined
  const dirty = new Set<string>()

  const sync = syncStore(store)

  type Step<R> = (record: BreakerRecord, t: number) => readonly [BreakerRecord | undefined, R]
  /** Keeps what a compare-and-set wrote; `undefined` when it lost the race (read again). */
  const wrote = <R>(provider: string, before: BreakerRecord, next: BreakerRecord, answer: R): readonly [BreakerRecord, BreakerRecord, R] => {
    if (own && isClean(next)) dirty.delete(provider)
    else if (own) dirty.add(provider)
    return [before, next, answer]
  }
  /** Read-modify-write of one provider's record: `step` returns the next record (or none) and an answer. */
  async function update<R>(provider: string, step: Step<R>): Promise<readonly [BreakerRecord, BreakerRecord, R]> {
    const key = prefix + provider
    for (let round = 0; ; round++) {
      const raw = await store.get(key)
      const before = decodeBreaker(raw)
      const [next, answer] = step(before, now())
      if (next === undefined || round >= MAX_CAS_ROUNDS) return [before, before, answer]
      if (await store.compareAndSet(key, raw, encodeBreaker(next))) return wrote(provider, before, next, answer)
    }
  }
  /** {@link update} on an in-process store, within one synchronous step (no other caller can interleave). */
  function updateNow<R>(s: SyncStateStore, provider: string, step: Step<R>): readonly [BreakerRecord, BreakerRecord, R] {
    const key = prefix + provider
    const raw = s.get(key)
    const before = decodeBreaker(raw)
    const [next, answer] = step(before, now())
    if (next === undefined) return [before, before, answer]
    s.compareAndSet(key, raw, encodeBreaker(next))
    return wrote(provider, before, next, answer)
  }

  const transition = (provider: string, before: BreakerRecord, after: BreakerRecord): BreakerTransition | undefined =>
    before.state === after.state ? undefined : { provider, from: before.state, to: after.state, failures: after.failures }

  const acquireStep: Step<BreakerPermit> = (r, t) => {
    switch (r.state) {
      case 'closed':
        return [undefined, ADMITTED]
      case 'open':
        if (t - r.openedAt < cooldownMs) return [undefined, { allowed: false, retryAfterMs: r.openedAt + cooldownMs - t, transition: undefined }]
        return [{ ...r, state: 'half-open', probes: 1, probeAt: t, successes: 0 }, PROBE]
      case 'half-open':
        if (r.probes < maxProbes) return [{ ...r, probes: r.probes + 1, probeAt: t }, PROBE]
        // Probes that never reported back (a crashed process) must not wedge the breaker half-open.
        if (t - r.probeAt >= cooldownMs) return [{ ...r, probes: 1, probeAt: t }, PROBE]
        return [undefined, { allowed: false, retryAfterMs: undefined, transition: undefined }]
    }
  }
  const recordStep =
    (probe: boolean, result: BreakerResult): Step<undefined> =>
    (r, t) => {
      if (r.state === 'closed') {
        if (result === 'failure') {
          const failures = r.failures + 1
          return [failures >= threshold ? { ...r, state: 'open', failures, openedAt: t } : { ...r, failures }, undefined]
        }
        return [result === 'success' && r.failures > 0 ? { ...r, failures: 0 } : undefined, undefined]
      }
      // Results of calls admitted before the breaker opened are stale: only probes count now.
      if (r.state === 'open' || !probe) return [undefined, undefined]
      const probes = Math.max(0, r.probes - 1)
      if (result === 'ignored') return [{ ...r, probes }, undefined]
      if (result === 'failure') return [{ ...r, state: 'open', openedAt: t, probes: 0, successes: 0, failures: r.failures + 1 }, undefined]
      const successes = r.successes + 1
      if (successes >= toClose) return [{ ...r, state: 'closed', failures: 0, probes: 0, successes: 0 }, undefined]
      return [{ ...r, probes, successes }, undefined]
    }
  const permitOf = (provider: string, [before, after, permit]: readonly [BreakerRecord, BreakerRecord, BreakerPermit]): BreakerPermit => {
    const changed = transition(provider, before, after)
    return permit.allowed && changed !== undefined ? { ...permit, transition: changed } : permit
  }
  // With its own store, a call that did not fail leaves a clean breaker as it is.
  const skipsRecord = (provider: string, result: BreakerResult): boolean => own && result !== 'failure' && !dirty.has(provider)

  const breaker: CircuitBreaker = {
    async acquire(provider) {
      if (own && !dirty.has(provider)) return ADMITTED
      return permitOf(provider, await update(provider, acquireStep))
    },
    async record(provider, permit, result) {
      if (!permit.allowed || skipsRecord(provider, result)) return undefined
      const [before, after] = await update(provider, recordStep(permit.probe, result))
      return transition(provider, before, after)
    },
    async state(provider) {
      return decodeBreaker(await store.get(prefix + provider))
    },
  }
  if (sync === undefined) return breaker
  const now_: BreakerNow = {
    acquire(provider) {
      if (own && !dirty.has(provider)) return ADMITTED
      return permitOf(provider, updateNow(sync, provider, acquireStep))
    },
    record(provider, permit, result) {
      if (!permit.allowed || skipsRecord(provider, result)) return undefined
      const [before, after] = updateNow(sync, provider, recordStep(permit.probe, result))
      return transition(provider, before, after)
    },
  }
  nowFaces.set(breaker, now_)
  return breaker
}

/** A breaker's synchronous face, when its store is in-process: the same answers as `acquire` and `record`, without a promise. */
export interface BreakerNow {
  acquire(provider: string): BreakerPermit
  record(provider: string, permit: BreakerPermit, result: BreakerResult): BreakerTransition | undefined
}

// By the breaker object itself: a wrapper of one (a spread copy, a Proxy) is awaited, its own methods called.
const nowFaces = new WeakMap<CircuitBreaker, BreakerNow>()

/** The synchronous face of a breaker made by {@link circuitBreaker} on an in-process store. */
export function breakerNow(breaker: CircuitBreaker): BreakerNow | undefined {
  return nowFaces.get(breaker)
}

/** True for a ready {@link CircuitBreaker} (as opposed to its options). */
export function isCircuitBreaker(value: unknown): value is CircuitBreaker {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as CircuitBreaker).acquire === 'function' &&
    typeof (value as CircuitBreaker).record === 'function'
  )
}
