import { nonNegativeNumber } from '../../model/assert-number.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import { nonNegativeNumber as nonNegativeNumberCheck, positiveInteger as positiveIntegerCheck } from '../option-checks.ts'
import { BUDGET_TOLERANCE_USD } from '../../model/budget-tolerance.ts'
import { onUnpricedOption, type OnUnpriced } from '../../model/on-unpriced.ts'
import { isStateLostError, type StateLostError } from '../../store/state-lost-error.ts'
import { markUnreadable } from '../../store/unreadable-value.ts'
import { STATE_STORE_METHODS, type Reservation, type StateStore } from '../../store/state-store.ts'
import { syncStore } from '../../store/sync-store.ts'
import { shownValue, typeName } from '../../model/describe-value.ts'
import { assertMethods, assertNonEmptyString } from '../../model/options-object.ts'

/** Options of {@link sharedBudget}. */
export interface SharedBudgetOptions {
  /** Where the spend is counted; share it across gates and processes. */
  readonly store: StateStore
  /** The store key of this budget, e.g. `budget:team-a:2026-05`. */
  readonly key: string
  /** The budget in USD. */
  readonly usd: number
  /** Expiry of the counter, in ms (a rolling window); none by default. */
  readonly ttlMs?: number
  /**
   * USD reserved before each attempt. By default the reservation is priced from the request: its
   * UTF-8 bytes as input tokens (a tokenizer never makes more tokens than bytes) and `maxTokens` (or
   * `assumedOutputTokens`) as output tokens, so it bounds what the attempt can cost.
   */
  readonly reserveUsd?: number
  /** Output tokens reserved for a request without `maxTokens`. @default 4096 */
  readonly assumedOutputTokens?: number
  /**
   * Life of a reservation, in ms: one held by a process that crashed expires after it. Keep it above
   * your longest attempt (the gate's `timeoutMs`). @default 600_000 (10 minutes)
   */
  readonly reservationTtlMs?: number
  /**
   * Longest wait, in ms, for attempts in flight to settle when the rest of the budget is reserved
   * by them but not yet spent; after it the attempt fails with kind `budget-exceeded`. @default 30_000
   */
  readonly maxWaitMs?: number
  /**
   * An attempt whose cost cannot be priced (no pricing, an unknown model, a failing price function):
   * `warn` reserves and charges what it can and reports `cost_unknown`; `fail` fails the attempt
   * closed with kind `budget-exceeded` (before the call when the reservation cannot be priced).
   * @default 'warn'
   */
  readonly onUnpriced?: OnUnpriced
}

/** A cost budget shared by every run that uses it, counted in a {@link StateStore}. */
export interface SharedBudget {
  readonly key: string
  readonly usd: number
  /** A fixed reservation per attempt, when configured. */
  readonly reserveUsd: number | undefined
  readonly assumedOutputTokens: number
  readonly reservationTtlMs: number
  readonly maxWaitMs: number
  readonly onUnpriced: OnUnpriced
  /** USD spent (committed) so far under this key; rejects with a `TypeError` when the store holds something that is not a number there. */
  spent(): Promise<number>
  /** Holds `usd` for one attempt (`id`) if spend plus live reservations plus it stay within the budget. */
  reserve(id: string, usd: number): Promise<Reservation>
  /** Ends reservation `id` and commits `usd`, the attempt's real cost; returns the new spend. */
  settle(id: string, usd: number): Promise<number>
  /**
   * Why the budget refuses to spend: the `StateLostError` of the store that found its state gone (a
   * Redis restarted without persistence, a key evicted or flushed). Until {@link rearm}, every
   * reserve and settle rejects with it, so an attempt fails closed rather than spend from zero.
   */
  readonly lost: StateLostError | undefined
  /** Accepts that the state was lost: the budget counts again from what the store holds now. */
  rearm(): void
}

/**
 * The options `sharedBudget` takes, checked once: `{ reserveUSD: 0.5 }` is refused with "did you
 * mean", not ignored; the times are durations below 2^31 ms (`ttlMs` and `reservationTtlMs` from 1:
 * a counter or a reservation that expires at once would forget what it counts).
 */
const SHARED_BUDGET = optionsContract<SharedBudgetOptions>('sharedBudget', {
  store: option.any(),
  key: option.any(),
  usd: nonNegativeNumberCheck,
  ttlMs: option.duration(),
  reserveUsd: nonNegativeNumberCheck,
  assumedOutputTokens: positiveIntegerCheck,
  reservationTtlMs: option.duration(),
  maxWaitMs: option.duration(0),
  onUnpriced: option.any(),
})

/**
 * A budget shared across runs, gates and processes, that is never overspent: reserve, then commit.
 * Given as `GateConfig.budget`, the gate reserves an estimate before every attempt (atomically
 * against what is spent and what other attempts in flight hold), calls the provider only when it
 * fits, then commits the attempt's real cost and releases the rest. A spent budget fails the
 * attempt with kind `budget-exceeded` before the provider is called; when the remainder is only
 * held by attempts in flight, the attempt waits for them (up to `maxWaitMs`). Reservations of a
 * process that crashed expire after `reservationTtlMs`. A store that finds the budget's state gone
 * (`redisStore` after a restart without persistence or a flush) fails every attempt closed, code
 * `budget-state-lost`, until `rearm()`.
 *
 * @example
 * const budget = sharedBudget({ store: redisStore(client), key: 'budget:team-a', usd: 25 })
 * createGate({ providers, pricing, budget })
 */
export function sharedBudget(given: SharedBudgetOptions): SharedBudget {
  if (typeof given !== 'object' || given === null) throw new TypeError(`sharedBudget: expected { store, key, usd }, got ${typeName(given)}`)
  const options = SHARED_BUDGET.check(given)
  const { store, key, usd } = options
  assertMethods(store, STATE_STORE_METHODS, 'sharedBudget: store', 'a StateStore (memoryStore(), redisStore(...))')
  assertNonEmptyString(key, 'sharedBudget: key')
  nonNegativeNumber(usd, 'sharedBudget: usd')
  // A counter that expires at once (ttl 0 or below) would forget every spend: the budget would never stop.
  const ttlMs = options.ttlMs
  const reserveUsd = options.reserveUsd
  const reservationTtlMs = options.reservationTtlMs ?? 600_000
  // Sums of float prices drift: spend within the tolerance of the budget still fits it.
  const limit = usd + BUDGET_TOLERANCE_USD
  let lost: StateLostError | undefined
  // The loss last re-armed: a call sent before the re-arm may still come back with it, and must not latch the budget again.
  let rearmed: StateLostError | undefined
  // A store that found the state gone latches the budget closed until someone re-arms it.
  const latch = (error: unknown): never => {
    if (isStateLostError(error) && error !== rearmed) lost = error
    throw error
  }
  const guarded = async <T>(operation: () => Promise<T>): Promise<T> => {
    if (lost !== undefined) throw lost
    try {
      return await operation()
    } catch (error) {
      return latch(error)
    }
  }
  const sync = syncStore(store)
  const now: BudgetNow | undefined =
    sync === undefined
      ? undefined
      : {
          reserve(id, cost) {
            if (lost !== undefined) throw lost
            try {
              return sync.reserve(key, id, cost, limit, reservationTtlMs)
            } catch (error) {
              return latch(error)
            }
          },
          settle(id, cost) {
            if (lost !== undefined) throw lost
            try {
              return sync.settle(key, id, cost, ttlMs)
            } catch (error) {
              return latch(error)
            }
          },
        }
  const budget: SharedBudget = {
    key,
    usd,
    reserveUsd,
    assumedOutputTokens: options.assumedOutputTokens ?? 4096,
    reservationTtlMs,
    maxWaitMs: options.maxWaitMs ?? 30_000,
    onUnpriced: onUnpricedOption(options.onUnpriced, 'sharedBudget: onUnpriced'),
    async spent() {
      const raw = await store.get(key)
      if (raw === undefined) return 0
      // A store answering no string (null, a number) has no spend to show: refused as unreadable, as text that is no number is.
      const n = typeof raw !== 'string' || raw.trim() === '' ? Number.NaN : Number(raw)
      if (!Number.isFinite(n))
        throw markUnreadable(
          new TypeError(`sharedBudget: the spend under ${shownValue(key)} holds ${shownValue(raw)}, which is not a number: refused rather than read as 0`),
        )
      return n
    },
    reserve: (id, cost) => guarded(() => store.reserve(key, id, cost, limit, reservationTtlMs)),
    settle: (id, cost) => guarded(() => store.settle(key, id, cost, ttlMs)),
    get lost() {
      return lost
    },
    rearm() {
      rearmed = lost ?? rearmed
      lost = undefined
    },
  }
  if (now !== undefined) nowFaces.set(budget, now)
  return budget
}

/** A budget's synchronous face, when its store is in-process: `reserve` and `settle` answered at once (a throw for a failure). */
export interface BudgetNow {
  reserve(id: string, usd: number): Reservation
  settle(id: string, usd: number): number
}

// By the budget object itself: a wrapper of one (a spread copy, a Proxy) is awaited, its own methods called.
const nowFaces = new WeakMap<SharedBudget, BudgetNow>()

/** The synchronous face of a budget made by {@link sharedBudget} on an in-process store. */
export function budgetNow(budget: SharedBudget): BudgetNow | undefined {
  return nowFaces.get(budget)
}
