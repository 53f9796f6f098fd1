import type { EventTags } from '../events/event-map.ts'
import { newRunId } from '../events/run-id.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import { raceAbort } from '../policies/deadline/race-abort.ts'
import { sleep } from '../policies/deadline/sleep.ts'
import { RunMeter } from '../policies/meter.ts'
import { isBudgetRule } from '../rules/budget-rule.ts'
import { adjustRequestFor } from '../rules/retry-truncated.ts'
import type { Decision, ReliabilityRule } from '../rules/rule.ts'
import type { Phase, ReliabilityScope } from '../rules/scope.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { scopeOf } from './build-scope.ts'
import { INVALID_RULE, kindOf, ruleProblem } from './check-rules.ts'
import { firstMatchingRule } from './evaluate-rules.ts'
import { failFast } from './fail-fast.ts'
import { succeed, useFallback } from './finish-run.ts'
import type { Message } from '../model/message.ts'
import type { Terminal } from '../policies/middleware.ts'
import type { CompiledSchema } from '../validation/index.ts'
import type { AttemptRecord } from './attempt-record.ts'
import type { DecisionGuard, GateInternals, GateRunOptions, RunHooks } from './gate-internals.ts'
import type { GateResult } from './gate-result.ts'
import { nextTail } from './next-tail.ts'
import { recordAttempt } from './record-attempt.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { baseFor } from './base-request.ts'
import { reasonFor } from './fail-reason.ts'
import { settleAttempt, startAttempt } from './run-attempt.ts'
import type { RunState } from './run-state.ts'

export type { DecisionGuard, GateInternals, GateRunOptions, RunHooks } from './gate-internals.ts'

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

  constructor(g: GateInternals<T>, request: ModelRequest, options: GateRunOptions, hooks?: RunHooks) {
    this.g = g
    this.request = request
    this.signal = options.signal ?? request.signal
    this.runId = options.runId ?? newRunId()
    this.metadata = options.metadata
    this.failuresBefore = options.validationFailuresBefore ?? 0
    this.#tags = options.turn
    this.schema = options.validateOutput === false ? undefined : g.schema
    this.call = hooks?.call ?? g.call
    this.direct = !g.linked && hooks?.call === undefined
    this.guard = hooks?.guardDecision
    this.meter = new RunMeter(g.priceUsage, g.needsPrice)
    this.started = this.lastTime = this.attemptStarted = g.now()
    this.base = request
    this.base = baseFor(this, 0)
    if (g.events.has('run_start')) {
      g.events.emit('run_start', { runId: this.runId, ...this.tags, provider: (g.providers[0] as ResolvedProvider).name, model: this.base.model })
    }
  }

  /** The turn and metadata every event of the run carries; `undefined` when the run has neither. */
  get tags(): EventTags | undefined {
    const tags = this.#tags
    if (typeof tags === 'object') return tags
    if (tags === undefined && this.metadata === undefined) return undefined
    return (this.#tags = tagsOf(tags, this.metadata))
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
        return this.#retry(decision, rule, (scope ??= scopeOf(this, 'post-decide', outcome)), outcome, ruleKind)
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
    const s = this
    const scope = scopeOf(s, 'pre-check', undefined)
    const rule = firstMatchingRule(s.g.preCheck, scope, (this.#onWhenError ??= this.#whenErrorReporter()))
    if (rule === undefined) return
    this.#checkMatched(rule, 'pre-check', undefined)
    this.#emitDecision(rule.then, rule.kind, rule, 'pre-check')
    const events = s.g.events
    if (isBudgetRule(rule) && events.has('budget_exceeded')) {
      events.emit('budget_exceeded', { runId: s.runId, ...s.tags, budgetUsd: rule.budgetUsd, spentUsd: s.meter.costUsd, action: rule.then === 'fail-fast' ? 'halt' : 'warn' })
    }
    if (rule.then === 'fail-fast') {
      throw failFast(s, rule.kind, `PreCheck rule ${rule.label ?? rule.kind} stopped attempt ${s.attempt + 1} before the provider was called`, 'pre-check')
    }
  }

  /** Builds the next attempt (tail, provider, request), waits any delay, and resolves `undefined`: attempt again. */
  async #retry(decision: 'retry' | 'retry-other', rule: ReliabilityRule | undefined, scope: ReliabilityScope, outcome: AttemptOutcome<T>, ruleKind: string): Promise<undefined> {
    const s = this
    const g = s.g
    const from = g.providers[s.providerIdx] as ResolvedProvider
    if (s.attempt + 1 >= g.maxAttempts) {
      recordAttempt(s, outcome, 'fail-fast', 'max-attempts', rule, undefined)
      throw failFast(s, 'max-attempts', `the safety cap of ${g.maxAttempts} attempts was reached`, 'post-decide', outcome.error, outcome.failure)
    }
    if (decision === 'retry-other' && s.providerIdx + 1 >= g.providers.length) {
      recordAttempt(s, outcome, 'fail-fast', 'no-more-providers', rule, undefined)
      throw failFast(s, 'no-more-providers', `no provider left after ${from.name} (${outcome.kind})`, 'post-decide', outcome.error, outcome.failure)
    }
    const delayMs = this.#delayFor(rule, scope)
    // Retrying an open breaker without waiting out its cooldown would only spin to the safety cap.
    if (outcome.kind === 'circuit-open' && decision === 'retry' && !(delayMs >= (outcome.retryAfterMs ?? Number.POSITIVE_INFINITY))) {
      recordAttempt(s, outcome, 'fail-fast', 'circuit-open', rule, undefined)
      throw failFast(s, 'circuit-open', `the circuit breaker of provider "${from.name}" is open and no rule failed over or waited out its cooldown`, 'post-decide', outcome.error)
    }
    let feedback: string | undefined
    try {
      // An async feedbackForLLM is user code: it must not hold the run past its signal.
      feedback = await raceAbort(nextTail(s, rule, scope, outcome, (r, e) => this.#ruleError(r, 'feedbackForLLM', e)), s.signal)
    } catch (error) {
      if (s.signal?.aborted !== true) throw error
      recordAttempt(s, outcome, 'fail-fast', 'aborted', rule, undefined)
      throw failFast(s, 'aborted', 'the run was aborted while the feedback for the next attempt was being built', 'post-decide', error)
    }
    recordAttempt(s, outcome, decision, ruleKind, rule, feedback)

    if (decision === 'retry-other') {
      s.providerIdx++
      s.base = baseFor(s, s.providerIdx)
    }
    // A rule may change the next request, e.g. retryTruncated asks for a larger maxTokens.
    s.base = adjustRequestFor(rule, scope, s.base)
    const to = g.providers[s.providerIdx] as ResolvedProvider
    if (g.events.has('retry')) {
      g.events.emit('retry', { runId: s.runId, ...s.tags, attempt: s.attempt + 1, nextAttempt: s.attempt + 2, decision, fromProvider: from.name, toProvider: to.name, delayMs, feedback, tail: s.tail })
    }
    s.attempt++
    if (delayMs > 0) {
      try {
        await sleep(delayMs, s.signal)
      } catch (error) {
        throw failFast(s, 'aborted', 'the run was aborted while waiting to retry', 'post-decide', error)
      }
    }
    return undefined
  }

  /**
   * The wait a rule asks for before the next attempt: any finite length (long ones are slept in
   * chunks). A delay that is not a finite number (NaN, Infinity, a string) or a function that throws
   * is reported as `rule_error` and means no wait.
   */
  #delayFor(rule: ReliabilityRule | undefined, scope: ReliabilityScope): number {
    const d = rule?.delayMs
    if (d === undefined) return 0
    let ms: unknown
    try {
      ms = typeof d === 'function' ? d(scope) : d
    } catch (error) {
      this.#ruleError(rule as ReliabilityRule, 'delayMs', error)
      return 0
    }
    if (typeof ms === 'number' && Number.isFinite(ms)) return ms > 0 ? ms : 0
    this.#ruleError(rule as ReliabilityRule, 'delayMs', new RangeError(`delayMs must be a finite number of ms, got ${typeof ms === 'number' ? String(ms) : typeof ms}`))
    return 0
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
    const s = this
    if (!s.g.events.has('decision')) return
    s.g.events.emit('decision', { runId: s.runId, ...s.tags, attempt: s.attempt + 1, phase, decision, kind, label: rule?.label, matched: rule !== undefined })
  }

  #ruleError(rule: ReliabilityRule, where: 'when' | 'then' | 'feedbackForLLM' | 'delayMs', error: unknown): void {
    const s = this
    if (s.g.events.has('rule_error')) s.g.events.emit('rule_error', { runId: s.runId, ...s.tags, attempt: s.attempt + 1, kind: kindOf(rule), where, error })
  }
}

/** The run's event tags: built once per run, and only when the run has a turn or metadata and emits an event. */
function tagsOf(turn: number | undefined, metadata: Readonly<Record<string, unknown>> | undefined): EventTags {
  const tags: { -readonly [K in keyof EventTags]: EventTags[K] } = {}
  if (turn !== undefined) tags.turn = turn
  if (metadata !== undefined) tags.metadata = metadata
  return tags
}
