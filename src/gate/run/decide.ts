import { isBudgetRule } from '../../rules/budget-rule.ts'
import type { Decision, ReliabilityRule } from '../../rules/rule.ts'
import type { Phase, ReliabilityScope } from '../../rules/scope.ts'
import type { AttemptOutcome } from '../attempt-outcome.ts'
import { scopeOf } from '../build-scope.ts'
import { INVALID_RULE, ruleProblem } from '../check-rules.ts'
import { firstMatchingRule } from '../evaluate-rules.ts'
import { reasonFor } from '../fail-reason.ts'
import { reportRuleError } from '../rule-error.ts'
import type { RunView } from './run-view.ts'
import { answerStopOf } from '../answer-guard/answer-guard-stop.ts'
import { guardVerdict } from '../answer-guard/guard-verdict.ts'

/** What the loop does after an attempt, decided by the PostDecide rules (and the guard of a stream). */
export type Verdict =
  | { readonly act: 'ok'; readonly kind: string; readonly rule: ReliabilityRule | undefined }
  | {
      readonly act: 'retry'
      readonly decision: 'retry' | 'retry-other'
      readonly kind: string
      readonly rule: ReliabilityRule | undefined
      readonly scope: ReliabilityScope
    }
  | { readonly act: 'fallback'; readonly kind: string; readonly rule: ReliabilityRule | undefined; readonly scope: ReliabilityScope }
  | { readonly act: 'fail'; readonly kind: string; readonly rule: ReliabilityRule | undefined; readonly reason: string }

// The verdict on an answer no rule judged, the common one: shared (read-only), none made per run.
const ACCEPTED: Verdict = Object.freeze({ act: 'ok', kind: 'ok', rule: undefined })

/** What a PreCheck rule decided: go on (`undefined`), or stop the run before the provider is called. */
export type PreVerdict = { readonly act: 'fail'; readonly kind: string; readonly reason: string } | undefined

/**
 * PostDecide: the first matching rule's decision on an outcome (an accepted answer skips the rules
 * that only judge failures, and builds no scope when no rule is left), overruled by the run's guard;
 * `decision` is emitted before the loop acts. A cancelled run is never retried, and `ok` needs an
 * answer to return. A content guard's stop of the answer decides first, as a rule of its own (see
 * `guardVerdict`). Synchronous unless a rule's `when` answers with a promise.
 */
export function decide<T>(run: RunView<T>, outcome: AttemptOutcome<T>): Verdict | Promise<Verdict> {
  const stop = answerStopOf(outcome.error)
  if (stop !== undefined) {
    const guarded = guardVerdict(stop)
    return act(run, outcome, guarded.rule, undefined, guarded.reason)
  }
  const rules = outcome.kind === 'ok' ? run.g.postDecideOnOk : run.g.postDecide
  if (rules.length === 0) return act(run, outcome, undefined, undefined)
  const scope = scopeOf(run, 'post-decide', outcome)
  const rule = firstMatchingRule(rules, scope, (r, e) => reportRuleError(run, r, 'when', e), run.signal)
  return rule instanceof Promise ? rule.then((r) => act(run, outcome, r, scope)) : act(run, outcome, rule, scope)
}

function act<T>(
  run: RunView<T>,
  outcome: AttemptOutcome<T>,
  rule: ReliabilityRule | undefined,
  scope: ReliabilityScope | undefined,
  guardReason?: string,
): Verdict {
  if (rule !== undefined) {
    const problem = ruleProblem(rule)
    if (problem !== undefined) return invalidRule(run, rule, problem, 'post-decide')
  }
  let decision: Decision = rule !== undefined ? rule.then : outcome.kind === 'ok' ? 'ok' : 'fail-fast'
  if (outcome.kind === 'aborted' || (decision === 'ok' && outcome.response === undefined)) decision = 'fail-fast'
  let kind: string = rule !== undefined && decision === rule.then ? rule.kind : outcome.kind
  // Aborted while an async rule decided: the run ends aborted whatever the rule said.
  if (run.signal?.aborted === true) {
    decision = 'fail-fast'
    kind = 'aborted'
  }
  // A guard's block or escalation keeps its kind on a stream that delivered text: it ends the run either way.
  const guarded = guardReason !== undefined && decision === 'fail-fast' && kind !== 'aborted' ? undefined : run.settings.guard?.(decision, kind)
  if (guarded !== undefined) {
    decision = guarded.decision
    kind = guarded.kind
  }
  emitDecision(run, decision, kind, rule, 'post-decide')
  switch (decision) {
    case 'ok':
      return rule === undefined && kind === 'ok' ? ACCEPTED : { act: 'ok', kind, rule }
    case 'retry':
    case 'retry-other':
      return { act: 'retry', decision, kind, rule, scope: scope ?? scopeOf(run, 'post-decide', outcome) }
    case 'fallback':
      return { act: 'fallback', kind, rule, scope: scope ?? scopeOf(run, 'post-decide', outcome) }
    case 'fail-fast':
      return { act: 'fail', kind, rule, reason: guardReason !== undefined && kind !== 'aborted' ? guardReason : reasonFor(outcome, rule) }
  }
}

/**
 * PreCheck: the first matching rule may stop the run before the provider is called (`budget_exceeded`
 * is emitted for a budget rule). Synchronous unless a rule's `when` answers with a promise.
 */
export function preCheck<T>(run: RunView<T>): PreVerdict | Promise<PreVerdict> {
  const scope = scopeOf(run, 'pre-check', undefined)
  const rule = firstMatchingRule(run.g.preCheck, scope, (r, e) => reportRuleError(run, r, 'when', e), run.signal)
  return rule instanceof Promise ? rule.then((r) => preAct(run, r)) : preAct(run, rule)
}

function preAct<T>(run: RunView<T>, rule: ReliabilityRule | undefined): PreVerdict {
  if (rule === undefined) return undefined
  const problem = ruleProblem(rule)
  if (problem !== undefined) return invalidRule(run, rule, problem, 'pre-check')
  emitDecision(run, rule.then, rule.kind, rule, 'pre-check')
  const events = run.g.events
  if (isBudgetRule(rule) && events.has('budget_exceeded')) {
    events.emit('budget_exceeded', {
      runId: run.runId,
      ...run.tags,
      budgetUsd: rule.budgetUsd,
      spentUsd: run.meter.costUsd,
      action: rule.then === 'fail-fast' ? 'halt' : 'warn',
    })
  }
  if (rule.then !== 'fail-fast') return undefined
  return { act: 'fail', kind: rule.kind, reason: `PreCheck rule ${rule.label ?? rule.kind} stopped attempt ${run.attempt + 1} before the provider was called` }
}

/**
 * A matching rule must be a rule: a `then` that is no Decision (or a `kind` that is no string) fails
 * the run with kind `invalid-rule` rather than acting on nonsense.
 */
function invalidRule<T>(run: RunView<T>, rule: ReliabilityRule, problem: string, phase: Phase): { act: 'fail'; kind: string; rule: undefined; reason: string } {
  reportRuleError(run, rule, 'then', new TypeError(problem))
  emitDecision(run, 'fail-fast', INVALID_RULE, undefined, phase)
  return {
    act: 'fail',
    kind: INVALID_RULE,
    rule: undefined,
    reason: `a matching ${phase === 'pre-check' ? 'PreCheck' : 'PostDecide'} rule is not a valid rule: ${problem}`,
  }
}

function emitDecision<T>(run: RunView<T>, decision: Decision, kind: string, rule: ReliabilityRule | undefined, phase: Phase): void {
  if (!run.g.events.has('decision')) return
  run.g.events.emit('decision', {
    runId: run.runId,
    ...run.tags,
    attempt: run.attempt + 1,
    phase,
    decision,
    kind,
    label: rule?.label,
    matched: rule !== undefined,
  })
}
