import { isBudgetRule } from '../../rules/budget-rule.ts'
import type { Decision, ReliabilityRule } from '../../rules/rule.ts'
import type { Phase, ReliabilityScope } from '../../rules/scope.ts'
import type { AttemptOutcome } from '../attempt-outcome.ts'
import { scopeOf } from '../build-scope.ts'
import { INVALID_RULE, ruleProblem } from '../check-rules.ts'
import { firstMatchingRule, type RuleAsk } from '../evaluate-rules.ts'
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
    return act(run, outcome, { rule: guarded.rule, scope: undefined, guardReason: guarded.reason })
  }
  const rules = outcome.kind === 'ok' ? run.g.postDecideOnOk : run.g.postDecide
  if (rules.length === 0) return act(run, outcome, NO_MATCH)
  const scope = scopeOf(run, 'post-decide', outcome)
  const rule = firstMatchingRule(rules, scope, askOf(run))
  return rule instanceof Promise ? rule.then((r) => act(run, outcome, { rule: r, scope })) : act(run, outcome, { rule, scope })
}

/** What matched an outcome: the rule (none: no rule matched), the scope it was asked in, and a content guard's reason to stop. */
interface Match {
  readonly rule: ReliabilityRule | undefined
  readonly scope: ReliabilityScope | undefined
  readonly guardReason?: string
}

// No rule to ask, the common case: shared (read-only).
const NO_MATCH: Match = Object.freeze({ rule: undefined, scope: undefined })

/** The rules of `run` asked bounded by its signal, a `when` that throws reported as the run's `rule_error`. */
function askOf<T>(run: RunView<T>): RuleAsk {
  return { signal: run.signal, onError: (r, e) => reportRuleError(run, r, 'when', e) }
}

function act<T>(run: RunView<T>, outcome: AttemptOutcome<T>, match: Match): Verdict {
  const { rule, scope, guardReason } = match
  if (rule !== undefined) {
    const problem = ruleProblem(rule, 'post-decide')
    if (problem !== undefined) return invalidRule(run, rule, problem, 'post-decide')
  }
  // ruleProblem refused 'continue' (a PreCheck decision) above.
  let decision = (rule !== undefined ? rule.then : outcome.kind === 'ok' ? 'ok' : 'fail-fast') as Decision
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
  if (run.g.events.has('decision')) emitDecision(run, { decision, kind, rule, phase: 'post-decide' })
  switch (decision) {
    case 'ok':
      return rule === undefined && kind === 'ok' ? ACCEPTED : { act: 'ok', kind, rule }
    case 'retry':
    case 'retry-other':
      return { act: 'retry', decision, kind, rule, scope: scope ?? scopeOf(run, 'post-decide', outcome) }
    case 'fallback':
      return { act: 'fallback', kind, rule, scope: scope ?? scopeOf(run, 'post-decide', outcome) }
    case 'fail-fast':
      return { act: 'fail', kind, rule, reason: guardReason !== undefined && kind !== 'aborted' ? guardReason : failReason(outcome, rule, kind) }
  }
}

/**
 * PreCheck: the first matching rule may stop the run before the provider is called (`budget_exceeded`
 * is emitted for a budget rule). Synchronous unless a rule's `when` answers with a promise.
 */
export function preCheck<T>(run: RunView<T>): PreVerdict | Promise<PreVerdict> {
  const scope = scopeOf(run, 'pre-check', undefined)
  const rule = firstMatchingRule(run.g.preCheck, scope, askOf(run))
  return rule instanceof Promise ? rule.then((r) => preAct(run, r)) : preAct(run, rule)
}

function preAct<T>(run: RunView<T>, rule: ReliabilityRule | undefined): PreVerdict {
  if (rule === undefined) return undefined
  const problem = ruleProblem(rule, 'pre-check')
  if (problem !== undefined) return invalidRule(run, rule, problem, 'pre-check')
  if (run.g.events.has('decision')) emitDecision(run, { decision: rule.then, kind: rule.kind, rule, phase: 'pre-check' })
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
  // agentfootprint's reason: the rule's label, else its kind (the phase is put before it).
  return { act: 'fail', kind: rule.kind, reason: rule.label ?? rule.kind }
}

/**
 * The reason of a PostDecide fail-fast: the deciding rule's label, else its kind, as agentfootprint
 * words it (what failed is on the error's `payload.errorMessage`, `cause` and `validationError`);
 * what went wrong when no rule decided it.
 */
function failReason<T>(outcome: AttemptOutcome<T>, rule: ReliabilityRule | undefined, kind: string): string {
  if (rule !== undefined && rule.then === 'fail-fast' && kind === rule.kind) return rule.label ?? rule.kind
  return reasonFor(outcome, rule)
}

/**
 * A matching rule must be a rule: a `then` that is no Decision (or a `kind` that is no string) fails
 * the run with kind `invalid-rule` rather than acting on nonsense.
 */
function invalidRule<T>(run: RunView<T>, rule: ReliabilityRule, problem: string, phase: Phase): { act: 'fail'; kind: string; rule: undefined; reason: string } {
  reportRuleError(run, rule, 'then', new TypeError(problem))
  if (run.g.events.has('decision')) emitDecision(run, { decision: 'fail-fast', kind: INVALID_RULE, rule: undefined, phase })
  return {
    act: 'fail',
    kind: INVALID_RULE,
    rule: undefined,
    reason: `a matching ${phase === 'pre-check' ? 'PreCheck' : 'PostDecide'} rule is not a valid rule: ${problem}`,
  }
}

/** A decision as `decision` reports it: what was decided, its kind, the rule that matched (none: the default), in which phase. */
interface DecisionFacts {
  readonly decision: Decision | 'continue'
  readonly kind: string
  readonly rule: ReliabilityRule | undefined
  readonly phase: Phase
}

/** Emits `decision` (callers check `events.has('decision')` first, so a run nobody watches builds nothing). */
function emitDecision<T>(run: RunView<T>, d: DecisionFacts): void {
  run.g.events.emit('decision', {
    runId: run.runId,
    ...run.tags,
    attempt: run.attempt + 1,
    phase: d.phase,
    decision: d.decision,
    kind: d.kind,
    label: d.rule?.label,
    matched: d.rule !== undefined,
  })
}
