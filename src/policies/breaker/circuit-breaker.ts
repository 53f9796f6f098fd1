import { option, optionsContract } from '../../model/options-contract.ts'
import { positiveInteger } from '../option-checks.ts'
import { memoryStore } from '../../store/memory-store.ts'
import { STATE_STORE_METHODS, type StateStore } from '../../store/state-store.ts'
import { syncStore } from '../../store/sync-store.ts'
import { assertMethods } from '../../model/options-object.ts'
import { shownValue } from '../../model/describe-value.ts'
import { assertObject, assertString } from '../../model/argument-checks.ts'
import type { BreakerPermit, BreakerResult } from './breaker-permit.ts'
import { decodeBreaker, encodeBreaker, type BreakerRecord, type BreakerTransition } from './breaker-state.ts'
import { cachedDecode, cachedKeys } from './breaker-caches.ts'

const RESULTS: readonly unknown[] = ['success', 'failure', 'ignored']

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
  /** Prefix of the store keys (one key per provider name, a `:` or `%` in it written `%3A` or `%25`), not empty: a key of the provider's name alone could be another writer's. @default 'rg:breaker:' */
  readonly keyPrefix?: string
  /**
   * Clock in ms. Wall-clock by default because a shared store compares times across processes.
   * @default Date.now
   */
  readonly now?: () => number
}

/** The options `circuitBreaker` takes, checked once: `{ threshold: 3 }` is refused with "did you mean", not ignored. */
export const CIRCUIT_BREAKER = optionsContract<CircuitBreakerOptions>('circuitBreaker', {
  failureThreshold: positiveInteger,
  cooldownMs: option.duration(0),
  halfOpenMaxProbes: positiveInteger,
  successesToClose: positiveInteger,
  // Checked below, naming the methods it lacks.
  store: option.any(),
  keyPrefix: option.nonEmptyString(),
  now: option.function(),
})

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
const PROBE = Object.freeze({ allowed: true, probe: true, transition: undefined }) satisfies BreakerPermit
const PROBES_BUSY: BreakerPermit = Object.freeze({ allowed: false, retryAfterMs: undefined, transition: undefined })

/** The next record of one step of a read-modify-write, or `undefined` to leave the record as it is. */
type Step = (record: BreakerRecord, t: number, probe: boolean, result: BreakerResult) => BreakerRecord | undefined

/** What one read-modify-write did: the record it read, the one it left, the step's next record (written or not) and its clock. */
interface Updated {
  readonly before: BreakerRecord
  readonly after: BreakerRecord
  readonly next: BreakerRecord | undefined
  readonly t: number
}

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
  const options = CIRCUIT_BREAKER.check(given)
  if (options.store !== undefined) assertMethods(options.store, STATE_STORE_METHODS, 'circuitBreaker: store', 'a StateStore')
  const threshold = options.failureThreshold ?? 5
  const cooldownMs = options.cooldownMs ?? 30_000
  const maxProbes = options.halfOpenMaxProbes ?? 1
  const toClose = options.successesToClose ?? 1
  const store = options.store ?? memoryStore()
  const prefix = options.keyPrefix ?? 'rg:breaker:'
  const clock = options.now ?? Date.now
  // A clock that answers no time (NaN, a string) would write a record no process can read: refused before any write, as a failing store is.
  const now = (): number => {
    const t = clock()
    if (typeof t === 'number' && Number.isFinite(t)) return t
    throw new TypeError(`circuitBreaker: now() must answer a finite number of ms, got ${shownValue(t)}`)
  }
  // With its own store nobody else writes this breaker's records, so it knows which providers are
  // not clean (closed, no failures) and skips the store for the others: a clean closed breaker
  // admits a call and ignores a success without a read or a write. A store that was passed in may be
  // shared (other gates, other processes): a success there must still reset failures others counted,
  // so every acquire and record goes to the store.
  const own = options.store === undefined
  const dirty = new Set<string>()

  const sync = syncStore(store)
  const keyOf = cachedKeys(prefix)

  /** Keeps track of what a compare-and-set wrote. */
  const wrote = (provider: string, next: BreakerRecord): void => {
    if (own && isClean(next)) dirty.delete(provider)
    else if (own) dirty.add(provider)
  }
  /** Read-modify-write of one provider's record: `step` gives the next record, or none to leave it. */
  async function update(provider: string, step: Step, probe: boolean, result: BreakerResult): Promise<Updated> {
    const key = keyOf(provider)
    for (let round = 0; ; round++) {
      const raw = await store.get(key)
      const before = decodeBreaker(raw, key)
      const t = now()
      const next = step(before, t, probe, result)
      if (next === undefined || round >= MAX_CAS_ROUNDS) return { before, after: before, next, t }
      const written: unknown = await store.compareAndSet(key, raw, encodeBreaker(next))
      // A store answering no verdict (1, 'false') cannot say whether this breaker's probe was counted: a failing store, not a write.
      if (typeof written !== 'boolean')
        throw new TypeError(`circuitBreaker: the store's compareAndSet of ${shownValue(key)} answered ${shownValue(written)}, not true or false`)
      if (written) {
        wrote(provider, next)
        return { before, after: next, next, t }
      }
    }
  }

  const transition = (provider: string, { before, after }: Updated): BreakerTransition | undefined =>
    before.state === after.state ? undefined : { provider, from: before.state, to: after.state, failures: after.failures }

  const acquireStep: Step = (r, t) => {
    switch (r.state) {
      case 'closed':
        return undefined
      case 'open':
        return t - r.openedAt < cooldownMs ? undefined : { ...r, state: 'half-open', probes: 1, probeAt: t, successes: 0 }
      case 'half-open':
        if (r.probes < maxProbes) return { ...r, probes: r.probes + 1, probeAt: t }
        // Probes that never reported back (a crashed process) must not wedge the breaker half-open.
        if (t - r.probeAt >= cooldownMs) return { ...r, probes: 1, probeAt: t }
        return undefined
    }
  }
  const recordStep: Step = (r, t, probe, result) => {
    if (r.state === 'closed') {
      if (result === 'failure') {
        const failures = r.failures + 1
        return failures >= threshold ? { ...r, state: 'open', failures, openedAt: t } : { ...r, failures }
      }
      return result === 'success' && r.failures > 0 ? { ...r, failures: 0 } : undefined
    }
    // Results of calls admitted before the breaker opened are stale: only probes count now.
    if (r.state === 'open' || !probe) return undefined
    const probes = Math.max(0, r.probes - 1)
    if (result === 'ignored') return { ...r, probes }
    if (result === 'failure') return { ...r, state: 'open', openedAt: t, probes: 0, successes: 0, failures: r.failures + 1 }
    const successes = r.successes + 1
    if (successes >= toClose) return { ...r, state: 'closed', failures: 0, probes: 0, successes: 0 }
    return { ...r, probes, successes }
  }
  /** The answer of an acquire: every record it writes admits a probe; one it leaves admits, or refuses, as the state says. */
  const permitOf = (provider: string, u: Updated): BreakerPermit => {
    const { before, t } = u
    if (u.next === undefined) {
      if (before.state === 'closed') return ADMITTED
      if (before.state === 'half-open') return PROBES_BUSY
      return { allowed: false, retryAfterMs: before.openedAt + cooldownMs - t, transition: undefined }
    }
    // A probe the compare-and-set never wrote (others won every round) is not counted, so it is not admitted: the winners are the probes.
    if (u.after !== u.next) return PROBES_BUSY
    const changed = transition(provider, u)
    return changed === undefined ? PROBE : { ...PROBE, transition: changed }
  }
  // With its own store, a call that did not fail leaves a clean breaker as it is.
  const skipsRecord = (provider: string, result: BreakerResult): boolean => own && result !== 'failure' && !dirty.has(provider)

  const breaker: CircuitBreaker = {
    async acquire(provider) {
      assertString(provider, 'circuitBreaker.acquire: provider')
      if (own && !dirty.has(provider)) return ADMITTED
      return permitOf(provider, await update(provider, acquireStep, false, 'ignored'))
    },
    async record(provider, permit, result) {
      assertString(provider, 'circuitBreaker.record: provider')
      assertObject(permit, 'circuitBreaker.record: permit', 'what acquire answered { allowed, probe }')
      if (!RESULTS.includes(result)) throw new TypeError(`circuitBreaker.record: result must be 'success', 'failure' or 'ignored', got ${shownValue(result)}`)
      if (!permit.allowed || skipsRecord(provider, result)) return undefined
      return transition(provider, await update(provider, recordStep, permit.probe, result))
    },
    async state(provider) {
      assertString(provider, 'circuitBreaker.state: provider')
      const key = keyOf(provider)
      return decodeBreaker(await store.get(key), key)
    },
  }
  if (sync === undefined) return breaker
  const decode = cachedDecode()
  /** {@link update} on the in-process store, within one synchronous step (no other caller can interleave). */
  const updateNow = (provider: string, step: Step, probe: boolean, result: BreakerResult): Updated => {
    const key = keyOf(provider)
    const raw = sync.get(key)
    const before = decode(raw, key)
    // A closed breaker's steps read the clock only to count a failure: no clock read (a boxed number, 32 B per attempt) to admit or hear a success.
    const t = before.state === 'closed' && result !== 'failure' ? 0 : now()
    const next = step(before, t, probe, result)
    let after = before
    if (next !== undefined) {
      sync.compareAndSet(key, raw, encodeBreaker(next))
      wrote(provider, next)
      after = next
    }
    return { before, after, next, t }
  }
  const now_: BreakerNow = {
    acquire(provider) {
      if (own && !dirty.has(provider)) return ADMITTED
      return permitOf(provider, updateNow(provider, acquireStep, false, 'ignored'))
    },
    record(provider, permit, result) {
      if (!permit.allowed || skipsRecord(provider, result)) return undefined
      return transition(provider, updateNow(provider, recordStep, permit.probe, result))
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
  if (typeof value !== 'object' || value === null) return false
  try {
    return typeof (value as CircuitBreaker).acquire === 'function' && typeof (value as CircuitBreaker).record === 'function'
  } catch {
    // A value whose fields cannot be read is no breaker: read as options, it is refused by their contract, typed.
    return false
  }
}
