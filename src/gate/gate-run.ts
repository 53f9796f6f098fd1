import { newRunId } from '../events/run-id.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import { sleep } from '../policies/deadline/sleep.ts'
import { RunMeter } from '../policies/meter.ts'
import { isBudgetRule } from '../rules/budget-rule.ts'
import { adjustRequestFor } from '../rules/retry-truncated.ts'
import type { Decision, ReliabilityRule } from '../rules/rule.ts'
import type { Phase, ReliabilityScope } from '../rules/scope.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { scopeOf } from './build-scope.ts'
import { messageOf } from './error-message.ts'
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
    this.schema = options.validateOutput === false ? undefined : g.schema
    this.call = hooks?.call ?? g.call
    this.direct = !g.linked && hooks?.call === undefined
    this.guard = hooks?.guardDecision
    this.meter = new RunMeter(g.priceUsage)
    this.started = this.lastTime = this.attemptStarted = g.now()
    this.base = request
    this.base = baseFor(this, 0)
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
    const rule = scope !== undefined ? firstMatchingRule(rules, scope, this.#onWhenError) : undefined
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

  readonly #onWhenError = (rule: ReliabilityRule, error: unknown): void => this.#ruleError(rule, 'when', error)

  #preCheck(): void {
    const s = this
    const scope = scopeOf(s, 'pre-check', undefined)
    const rule = firstMatchingRule(s.g.preCheck, scope, this.#onWhenError)
    if (rule === undefined) return
    this.#emitDecision(rule.then, rule.kind, rule, 'pre-check')
    const events = s.g.events
    if (isBudgetRule(rule) && events.has('budget_exceeded')) {
      events.emit('budget_exceeded', { runId: s.runId, budgetUsd: rule.budgetUsd, spentUsd: s.meter.costUsd, action: rule.then === 'fail-fast' ? 'halt' : 'warn' })
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
    const feedback = await nextTail(s, rule, scope, outcome, (r, e) => this.#ruleError(r, 'feedbackForLLM', e))
    recordAttempt(s, outcome, decision, ruleKind, rule, feedback)

    if (decision === 'retry-other') {
      s.providerIdx++
      s.base = baseFor(s, s.providerIdx)
    }
    // A rule may change the next request, e.g. retryTruncated asks for a larger maxTokens.
    s.base = adjustRequestFor(rule, scope, s.base)
    const to = g.providers[s.providerIdx] as ResolvedProvider
    if (g.events.has('retry')) {
      g.events.emit('retry', { runId: s.runId, attempt: s.attempt + 1, nextAttempt: s.attempt + 2, decision, fromProvider: from.name, toProvider: to.name, delayMs, feedback })
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

  #delayFor(rule: ReliabilityRule | undefined, scope: ReliabilityScope): number {
    const d = rule?.delayMs
    if (d === undefined) return 0
    if (typeof d === 'number') return Number.isFinite(d) && d > 0 ? d : 0
    try {
      const ms = d(scope)
      return Number.isFinite(ms) && ms > 0 ? ms : 0
    } catch (error) {
      this.#ruleError(rule as ReliabilityRule, 'delayMs', error)
      return 0
    }
  }

  #emitDecision(decision: Decision, kind: string, rule: ReliabilityRule | undefined, phase: Phase): void {
    const s = this
    if (!s.g.events.has('decision')) return
    s.g.events.emit('decision', { runId: s.runId, attempt: s.attempt + 1, phase, decision, kind, label: rule?.label, matched: rule !== undefined })
  }

  #ruleError(rule: ReliabilityRule, where: 'when' | 'feedbackForLLM' | 'delayMs', error: unknown): void {
    const s = this
    if (s.g.events.has('rule_error')) s.g.events.emit('rule_error', { runId: s.runId, attempt: s.attempt + 1, kind: rule.kind, where, error })
  }
}

function reasonFor<T>(outcome: AttemptOutcome<T>, rule: ReliabilityRule | undefined): string {
  const by = rule !== undefined ? `rule ${rule.label ?? rule.kind} decided fail-fast` : 'no rule handled it'
  if (outcome.failure !== undefined) return `the answer failed validation (${outcome.failure.message}); ${by}`
  if (outcome.error !== undefined) return `provider call failed (${outcome.kind}: ${messageOf(outcome.error)}); ${by}`
  return by
}

/**
 * The request of a provider without the tail: the caller's, with the provider's model, the output
 * JSON Schema and the run's signal. When nothing changes it is the caller's own object (never
 * mutated): no copy at all.
 */
function baseFor<T>(s: RunState<T>, providerIdx: number): ModelRequest {
  const entry = s.g.providers[providerIdx] as ResolvedProvider
  const request = s.request
  const model = entry.model ?? request.model
  const responseSchema = request.responseSchema ?? s.schema?.jsonSchema
  if (model === request.model && responseSchema === request.responseSchema && s.signal === request.signal) return request
  const base: { -readonly [K in keyof ModelRequest]: ModelRequest[K] } = { ...request }
  if (model !== undefined) base.model = model
  if (responseSchema !== undefined) base.responseSchema = responseSchema
  if (s.signal !== undefined) base.signal = s.signal
  else if ('signal' in base) delete base.signal
  return base
}
