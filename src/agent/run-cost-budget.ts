import type { EventHub } from '../events/event-hub.ts'
import { BUDGET_TOLERANCE_USD } from '../model/budget-tolerance.ts'
import type { CostBudget } from './cost-budget.ts'
import type { RunIdentity } from './run-events.ts'
import type { RunLedger } from './run-ledger.ts'

/**
 * The agent's per-run cost budget: checked before every model call of the run and, through the
 * gate's run-budget rule, before every retry inside one. `warn` reports once and lets the run go on;
 * `halt` stops it; unpriced calls fail it closed when `onUnpriced` is `fail`.
 */
export class RunCostBudget {
  readonly #budget: Required<CostBudget>
  readonly #events: EventHub
  #warned = false

  constructor(budget: Required<CostBudget>, events: EventHub) {
    this.#budget = budget
    this.#events = events
  }

  /** Why the run's next model call must not be made, or `undefined` when it may. */
  refusal(ledger: RunLedger, who: () => RunIdentity): string | undefined {
    const unpriced = ledger.unpricedAttempts
    if (!this.over(ledger.costUsd, unpriced, who)) return undefined
    const why =
      this.#budget.onUnpriced === 'fail' && unpriced > 0
        ? `the cost of ${unpriced} model ${unpriced === 1 ? 'call' : 'calls'} of the run could not be priced and the budget fails closed (onUnpriced: 'fail')`
        : `the run has spent $${ledger.costUsd} of its $${this.#budget.usd} budget`
    return `${why}; model call #${ledger.gateCalls + 1} was not made`
  }

  /** True when the run must halt at `spent` (or with unpriced calls, failing closed); reports `budget_exceeded`, once when it only warns. */
  over(spent: number, unpriced: number, who: () => RunIdentity): boolean {
    const budget = this.#budget
    if (budget.onUnpriced === 'fail' && unpriced > 0) return this.#report(spent, 'halt', who)
    // Float sums drift: spending the budget up to that noise is spending it, as for every other budget.
    if (spent < budget.usd - BUDGET_TOLERANCE_USD) return false
    if (budget.onExceed === 'halt') return this.#report(spent, 'halt', who)
    if (!this.#warned) {
      this.#warned = true
      this.#report(spent, 'warn', who)
    }
    return false
  }

  #report(spentUsd: number, action: 'warn' | 'halt', who: () => RunIdentity): boolean {
    if (this.#events.has('budget_exceeded')) {
      const { runId, tags } = who()
      this.#events.emit('budget_exceeded', { runId, ...tags, budgetUsd: this.#budget.usd, spentUsd, action })
    }
    return action === 'halt'
  }
}
