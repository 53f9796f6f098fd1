import { nonNegativeNumber } from '../../model/assert-number.ts'
import type { StateStore } from '../../store/state-store.ts'

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
}

/** A cost budget shared by every run that uses it, counted in a {@link StateStore}. */
export interface SharedBudget {
  readonly key: string
  readonly usd: number
  /** USD spent so far under this key. */
  spent(): Promise<number>
  /** Adds `usd` to the spend atomically and returns the new total. */
  charge(usd: number): Promise<number>
}

/**
 * A budget shared across runs, gates and processes. Given as `GateConfig.budget`, the gate checks it
 * before every attempt (a spent budget fails fast with kind `budget-exceeded` before the provider is
 * called) and charges every attempt's cost to it, failed attempts included. Concurrent runs may
 * overshoot by the attempts already in flight: the check is before the call, the charge after it.
 *
 * @example
 * const budget = sharedBudget({ store: memoryStore(), key: 'budget:team-a', usd: 25 })
 * createGate({ providers, pricing, budget })
 */
export function sharedBudget(options: SharedBudgetOptions): SharedBudget {
  const { store, key, usd, ttlMs } = options
  nonNegativeNumber(usd, 'sharedBudget: usd')
  return {
    key,
    usd,
    async spent() {
      const n = Number((await store.get(key)) ?? 0)
      return Number.isFinite(n) ? n : 0
    },
    charge: (cost) => store.increment(key, cost, ttlMs),
  }
}
