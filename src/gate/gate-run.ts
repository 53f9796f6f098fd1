import type { EventTags } from '../events/event-map.ts'
import { eventTags } from '../events/event-tags.ts'
import { newRunId } from '../events/run-id.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import { RunMeter } from '../policies/meter.ts'
import { isBudgetRule } from '../rules/budget-rule.ts'
import type { Decision, ReliabilityRule } from '../rules/rule.ts'
import type { Phase } from '../rules/scope.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { scopeOf } from './build-scope.ts'
import { INVALID_RULE, ruleProblem } from './check-rules.ts'
import { firstMatchingRule } from './evaluate-rules.ts'
import { failFast } from './fail-fast.ts'
import { succeed, useFallback } from './finish-run.ts'
import type { Message } from '../model/message.ts'
import type { Terminal } from '../policies/middleware.ts'
import type { CompiledSchema } from '../validation/index.ts'
import type { AttemptRecord } from './attempt-record.ts'
import type { DecisionGuard, GateInternals, GateRunOptions, RunHooks, RunStart } from './gate-internals.ts'
import type { GateResult } from './gate-result.ts'
import { recordAttempt } from './record-attempt.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { baseFor } from './base-request.ts'
import { reasonFor } from './fail-reason.ts'
import { settleAttempt, startAttempt } from './run-attempt.ts'
import { prepareRetry } from './retry-step.ts'
import { reportRuleError, type RuleErrorPlace } from './rule-error.ts'
import type { RunState } from './run-state.ts'
import type { NotAccepted } from './whole-answer.ts'

export type { DecisionGuard, GateInternals, GateRunOptions, RunHooks, RunStart } from './gate-internals.ts'

// Shared by every run until it has something to hold (each is replaced, never mutated, when it does).
const NONE: readonly never[] = Object.freeze([])
const NO_RECORDS = NONE as unknown as AttemptRecord[]

/**
 * One `gate.run`: the loop of DESIGN.md over the attempt chain. Per attempt: PreCheck, the chain
 * (policies, links, provider call, meter, check; events before any decision), PostDecide, act. A
 * hard cap on attempts always holds.
 */
export class GateRun<T> implements RunState<T> {
  readonly g: GateInternals<T>
  readonly request: ModelRequest
  readonly signal: AbortSignal | undefined
  readonly runId: string
  readonly metadata: Readonly<Record<string, unknown>> | undefined
  readonly turn: number | undefined
  readonly failuresBefore: number
  // The agent's turn until the first event that carries the tags builds them (most runs emit none).
  #tags: EventTags | number | undefined
  readonly schema: CompiledSchema<T> | undefined
  readonly call: Terminal
  readonly direct: boolean
  readonly guard: DecisionGuard | undefined
  readonly meter: RunMeter
  readonly started: number
  attempt = 0
  providerIdx = 0
  base: ModelRequest
  tail: readonly Message[] = NONE
  history: readonly string[] = NONE
  signatures: readonly string[] = NONE
  records: AttemptRecord[] = NO_RECORDS
  retryAfterMs: number | undefined = undefined
  transientFailures = 0
  lastTime: number
  attemptStarted: number

  /** `begun`: what `quickRun` already did for a run it hands over (no `run_start` then: it was not watched). */
  constructor(g: GateInternals<T>, request: ModelRequest, options: GateRunOptions, hooks?: RunHooks, begun?: RunStart) {
    this.g = g
    this.request = request
    this.signal = options.signal ?? request.signal
    this.runId = begun?.runId ?? options.runId ?? newRunId()
    this.metadata = options.metadata
    this.failuresBefore = options.validationFailuresBefore ?? 0
    this.turn = this.#tags = options.turn
    this.schema = options.validateOutput === false ? undefined : g.schema
    this.call = hooks?.call ?? g.call
    this.direct = !g.linked && hooks?.call === undefined
    this.guard = hooks?.guardDecision
    this.meter = new RunMeter(g.priceUsage, g.needsPrice)
    this.started = this.lastTime = this.attemptStarted = begun?.started ?? g.now()
    this.base = request
    this.base = begun?.base ?? baseFor(this, 0)
    if (begun === undefined && g.events.has('run_start')) {
      g.events.emit('run_start', { runId: this.runId, ...this.tags, provider: (g.providers[0] as ResolvedProvider).name, model: this.base.model })
    }
  }

  /** The turn and metadata every event of the run carries; `undefined` when the run has neither. */
  get tags(): EventTags | undefined {
    const tags = this.#tags
    if (typeof tags === 'object') return tags
    if (tags === undefined && this.metadata === undefined) return undefined
    return (this.#tags = eventTags(tags, this.metadata))
  }

  /**
   * The loop, as a chain of promise reactions rather than an async function: one attempt is one
   * reaction to its chain's promise, and everything after it is synchronous ({@link GateRun.#decide})
   * unless a schema, a retry, a fallback or an async rule needs to wait.
   */
  run(): Promise<GateResult<T>> {
    try {
      this.#beforeAttempt()
    } catch (error) {
      return Promise.reject(error)
    }
    return startAttempt(this).then(this.#answered, this.#failed)
  }

  /**
   * Goes on with the first attempt of a run `quickRun` started and could not accept: settles it as
   * {@link run} would have, then decides and acts.
   */
  resume(
    result: unknown,
    error: unknown,
    failed: boolean,
    endedAt: number | undefined,
    tried: NotAccepted | undefined,
  ): GateResult<T> | Promise<GateResult<T>> {
    return this.#settled(settleAttempt(this, result, error, failed, endedAt, tried))
  }

  readonly #answered = (result: unknown): GateResult<T> | Promise<GateResult<T>> => this.#settled(settleAttempt(this, result, undefined, false))
  readonly #failed = (error: unknown): GateResult<T> | Promise<GateResult<T>> => this.#settled(settleAttempt(this, undefined, error, true))

  #settled(outcome: AttemptOutcome<T> | Promise<AttemptOutcome<T>>): GateResult<T> | Promise<GateResult<T>> {
    if (outcome instanceof Promise) return outcome.then((o) => this.#settled(o))
    const next = this.#decide(outcome)
    if (!(next instanceof Promise)) return next
    return next.then((done) => done ?? this.run())
  }

  /** PreCheck, then the run's signal: either may end the run before the provider is called. */
  #beforeAttempt(): void {
    if (this.g.preCheck.length > 0) this.#preCheck()
    if (this.signal?.aborted === true) throw failFast(this, 'aborted', 'the run was aborted before the attempt started', 'pre-check', this.signal.reason)
  }

  /**
   * PostDecide and act: the result of an accepted answer, a promise of the fallback's result or of a
   * retry (`undefined`: attempt again), or a thrown fail-fast error.
   */
  #decide(outcome: AttemptOutcome<T>): GateResult<T> | Promise<GateResult<T> | undefined> {
    const g = this.g
    // The scope is a ~25-field snapshot: without a PostDecide rule to read it (an accepted answer
    // skips the rules that only judge failures), it is built only if a retry or a fallback needs it.
    const rules = outcome.kind === 'ok' ? g.postDecideOnOk : g.postDecide
    let scope = rules.length > 0 ? scopeOf(this, 'post-decide', outcome) : undefined
    const rule = scope !== undefined ? firstMatchingRule(rules, scope, (this.#onWhenError ??= this.#whenErrorReporter())) : undefined
    if (rule !== undefined) this.#checkMatched(rule, 'post-decide', outcome)
    let decision: Decision = rule !== undefined ? rule.then : outcome.kind === 'ok' ? 'ok' : 'fail-fast'
    // A cancelled run is never retried, and `ok` needs an answer to return.
    if (outcome.kind === 'aborted' || (decision === 'ok' && outcome.response === undefined)) decision = 'fail-fast'
    let ruleKind = rule !== undefined && decision === rule.then ? rule.kind : outcome.kind
    const guarded = this.guard?.(decision, ruleKind)
    if (guarded !== undefined) {
      decision = guarded.decision
      ruleKind = guarded.kind
    }
    this.#emitDecision(decision, ruleKind, rule, 'post-decide')

    switch (decision) {
      case 'ok':
        recordAttempt(this, outcome, decision, ruleKind, rule, undefined)
        return succeed(this, outcome.response as ModelResponse, outcome.value, outcome.failure, false)
      case 'retry':
      case 'retry-other':
        return prepareRetry(this, decision, rule, (scope ??= scopeOf(this, 'post-decide', outcome)), outcome, ruleKind)
      case 'fallback':
        recordAttempt(this, outcome, decision, ruleKind, rule, undefined)
        return useFallback(this, (scope ??= scopeOf(this, 'post-decide', outcome)), ruleKind)
      case 'fail-fast':
        recordAttempt(this, outcome, decision, ruleKind, rule, undefined)
        throw failFast(this, ruleKind, reasonFor(outcome, rule), 'post-decide', outcome.error, outcome.failure)
    }
  }

  // Made on first use: most runs evaluate no rule whose `when` throws, and many no rule at all.
  #onWhenError: ((rule: ReliabilityRule, error: unknown) => void) | undefined

  #whenErrorReporter(): (rule: ReliabilityRule, error: unknown) => void {
    return (rule, error) => this.#ruleError(rule, 'when', error)
  }

  #preCheck(): void {
    const scope = scopeOf(this, 'pre-check', undefined)
    const rule = firstMatchingRule(this.g.preCheck, scope, (this.#onWhenError ??= this.#whenErrorReporter()))
    if (rule === undefined) return
    this.#checkMatched(rule, 'pre-check', undefined)
    this.#emitDecision(rule.then, rule.kind, rule, 'pre-check')
    const events = this.g.events
    if (isBudgetRule(rule) && events.has('budget_exceeded')) {
      events.emit('budget_exceeded', {
        runId: this.runId,
        ...this.tags,
        budgetUsd: rule.budgetUsd,
        spentUsd: this.meter.costUsd,
        action: rule.then === 'fail-fast' ? 'halt' : 'warn',
      })
    }
    if (rule.then === 'fail-fast') {
      throw failFast(
        this,
        rule.kind,
        `PreCheck rule ${rule.label ?? rule.kind} stopped attempt ${this.attempt + 1} before the provider was called`,
        'pre-check',
      )
    }
  }

  /**
   * A matching rule must be a rule: a `then` that is no Decision (or a `kind` that is no string)
   * fails the run with kind `invalid-rule` rather than acting on nonsense.
   */
  #checkMatched(rule: ReliabilityRule, phase: Phase, outcome: AttemptOutcome<T> | undefined): void {
    const problem = ruleProblem(rule)
    if (problem === undefined) return
    this.#ruleError(rule, 'then', new TypeError(problem))
    this.#emitDecision('fail-fast', INVALID_RULE, undefined, phase)
    const reason = `a matching ${phase === 'pre-check' ? 'PreCheck' : 'PostDecide'} rule is not a valid rule: ${problem}`
    if (outcome === undefined) throw failFast(this, INVALID_RULE, reason, phase)
    recordAttempt(this, outcome, 'fail-fast', INVALID_RULE, undefined, undefined)
    throw failFast(this, INVALID_RULE, reason, phase, outcome.error, outcome.failure)
  }

  #emitDecision(decision: Decision, kind: string, rule: ReliabilityRule | undefined, phase: Phase): void {
    if (!this.g.events.has('decision')) return
    this.g.events.emit('decision', {
      runId: this.runId,
      ...this.tags,
      attempt: this.attempt + 1,
      phase,
      decision,
      kind,
      label: rule?.label,
      matched: rule !== undefined,
    })
  }

  #ruleError(rule: ReliabilityRule, where: RuleErrorPlace, error: unknown): void {
    reportRuleError(this, rule, where, error)
  }
}
