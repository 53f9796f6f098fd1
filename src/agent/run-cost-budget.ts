import type { EventHub } from '../events/event-hub.ts'
import { BUDGET_TOLERANCE_USD } from '../model/budget-tolerance.ts'
import type { ModelRequest } from '../model/request.ts'
import type { CostBudget } from './cost-budget.ts'
import type { RunBudgetChecks } from './run-budget-rule.ts'
import type { RunIdentity } from './run-events.ts'
import type { RunLedger } from './run-ledger.ts'

/** What a run's budget reads: the agent's budget, its events, and where the gate's run-budget rule finds each gate call's check. */
export interface CostBudgetHost {
  readonly budget: Required<CostBudget>
  readonly events: EventHub
  readonly checks: RunBudgetChecks
}

/**
 * The agent's per-run cost budget: checked before every model call of the run and, through the
 * gate's run-budget rule, before every retry inside one. `warn` reports once and lets the run go on;
 * `halt` stops it; unpriced calls fail it closed when `onUnpriced` is `fail`.
 */
export class RunCostBudget {
  readonly #host: CostBudgetHost
  /** What the run spent so far (its earlier gate calls). */
  readonly #ledger: RunLedger
  /** Who the run is, for `budget_exceeded` (read only when it is emitted). */
  readonly #who: () => RunIdentity
  #warned = false
  /** The request of the gate call in flight: the key of its check (see {@link watch}). */
  #request: ModelRequest | undefined

  constructor(host: CostBudgetHost, ledger: RunLedger, who: () => RunIdentity) {
    this.#host = host
    this.#ledger = ledger
    this.#who = who
  }

  /** Why the run's next model call must not be made, or `undefined` when it may. */
  refusal(): string | undefined {
    const ledger = this.#ledger
    const unpriced = ledger.unpricedAttempts
    if (!this.#over(ledger.costUsd, unpriced)) return undefined
    const budget = this.#host.budget
    const why =
      budget.onUnpriced === 'fail' && unpriced > 0
        ? `the cost of ${unpriced} model ${unpriced === 1 ? 'call' : 'calls'} of the run could not be priced and the budget fails closed (onUnpriced: 'fail')`
        : `the run has spent $${ledger.costUsd} of its $${budget.usd} budget`
    return `${why}; model call #${ledger.gateCalls + 1} was not made`
  }

  /**
   * Registers the check of the gate call made with `request`: the gate's run-budget rule finds it by
   * that very object and asks it before each retry, adding what the call spent to what the run spent before it.
   */
  watch(request: ModelRequest): void {
    const ledger = this.#ledger
    this.#request = request
    this.#host.checks.set(request, (inCall, unpricedInCall) => this.#over(ledger.costUsd + inCall, ledger.unpricedAttempts + unpricedInCall))
  }

  /** The gate call in flight settled: its check goes. */
  settled(): void {
    if (this.#request === undefined) return
    this.#host.checks.delete(this.#request)
    this.#request = undefined
  }

  /** True when the run must halt at `spent` (or with unpriced calls, failing closed); reports `budget_exceeded`, once when it only warns. */
  #over(spent: number, unpriced: number): boolean {
    const budget = this.#host.budget
    if (budget.onUnpriced === 'fail' && unpriced > 0) return this.#report(spent, 'halt')
    // Float sums drift: spending the budget up to that noise is spending it, as for every other budget.
    if (spent < budget.usd - BUDGET_TOLERANCE_USD) return false
    if (budget.onExceed === 'halt') return this.#report(spent, 'halt')
    if (!this.#warned) {
      this.#warned = true
      this.#report(spent, 'warn')
    }
    return false
  }

  #report(spentUsd: number, action: 'warn' | 'halt'): boolean {
    const events = this.#host.events
    if (events.has('budget_exceeded')) {
      const { runId, tags } = this.#who()
      events.emit('budget_exceeded', { runId, ...tags, budgetUsd: this.#host.budget.usd, spentUsd, action })
    }
    return action === 'halt'
  }
}
