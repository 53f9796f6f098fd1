import type { OnUnpriced } from '../model/on-unpriced.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import { callerRequestOf } from '../gate/frozen-attempt-request.ts'

/**
 * How a run answers "is my budget spent?" for one of its gate calls, given what that gate call has
 * spent so far: true halts the call before its next attempt.
 */
export type RunBudgetCheck = (spentInGateCallUsd: number, unpricedInGateCall: number) => boolean

/** The checks of the gate calls in flight, keyed by the base request each run handed to the gate. */
export type RunBudgetChecks = WeakMap<ModelRequest, RunBudgetCheck>

/**
 * The agent's per-run `costBudget` as a PreCheck rule of its gate, so it holds before every model
 * call, retries inside one turn included, not only before each turn. A rule only sees the spend of
 * its own gate call; the run adds what its earlier calls spent, found through the base request
 * (`scope.request` is the gate's frozen copy of the very object the run passed to `gate.run`).
 */
export function runBudgetRule(checks: RunBudgetChecks, onUnpriced: OnUnpriced): ReliabilityRule & { readonly onUnpriced: OnUnpriced } {
  return {
    when: function runCostBudget(scope) {
      const request = callerRequestOf(scope.request)
      return request !== undefined && checks.get(request)?.(scope.cumulativeCostUsd, scope.unpricedAttempts) === true
    },
    then: 'fail-fast',
    kind: 'budget-exceeded',
    label: 'the run cost budget',
    onUnpriced,
  }
}
