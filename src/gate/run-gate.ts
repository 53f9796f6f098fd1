import { isTransientKind, type ErrorKind } from '../model/error-kind.ts'
import type { Message } from '../model/message.ts'
import { ProviderError } from '../model/provider-error.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import { addUsage, ZERO_USAGE, type Usage } from '../model/usage.ts'
import { BUDGET_TOLERANCE_USD, isBudgetRule } from '../rules/budget-rule.ts'
import { adjustRequestFor } from '../rules/retry-truncated.ts'
import type { Decision, ReliabilityRule } from '../rules/rule.ts'
import type { Phase, ReliabilityScope } from '../rules/scope.ts'
import type { CompiledSchema } from '../validation/index.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import { abortableDelay } from './abortable-delay.ts'
import { attemptRecord, type AttemptOutcome } from './attempt-outcome.ts'
import type { AttemptRecord } from './attempt-record.ts'
import { acquirePermit, breakerResult, recordResult } from './breaker/breaker-calls.ts'
import type { BreakerTransition } from './breaker/breaker-state.ts'
import type { CircuitBreaker } from './breaker/circuit-breaker.ts'
import { buildValidationFeedback, echoPreviousOutput, type FeedbackContext } from './build-feedback.ts'
import { callProvider } from './call-provider.ts'
import { checkResponse } from './check-response.ts'
import { classifyError } from './classify-error.ts'
import { validationTail, withTail } from './ephemeral-tail.ts'
import { messageOf } from './error-message.ts'
import { firstMatchingRule } from './evaluate-rules.ts'
import { ReliabilityFailFastError } from './fail-fast-error.ts'
import type { DecisionGuard, GateInternals, GateRunOptions, ProviderCall, RunHooks } from './gate-internals.ts'
import type { GateResult } from './gate-result.ts'
import type { SharedBudget } from './pricing/shared-budget.ts'
import { rateLimitError } from './rate-limit/rate-limit-calls.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { resolveFeedback } from './resolve-feedback.ts'
import { runFallback } from './run-fallback.ts'

export type { DecisionGuard, GateInternals, GateRunOptions, ProviderCall, RunHooks } from './gate-internals.ts'

const plainCall: ProviderCall = (entry, request, signal, timeoutMs) => callProvider(entry.provider, request, signal, timeoutMs)

// Shared by every attempt that applied no repair (read-only, only its length is looked at).
const NO_REPAIRS: readonly string[] = Object.freeze([])

/**
 * One `gate.run`: the attempt loop of DESIGN.md (PreCheck -> provider call -> validation -> events
 * -> PostDecide -> act), with a hard cap on attempts.
 */
export class GateRun<T> {
  readonly #g: GateInternals<T>
  readonly #request: ModelRequest
  readonly #signal: AbortSignal | undefined
  readonly #started: number
  #attempt = 0
  #providerIdx = 0
  #usage: Usage = ZERO_USAGE
  #costUsd = 0
  #lastCostUsd = 0
  #retryAfterMs: number | undefined
  // Replaced, never mutated: every scope handed to a rule keeps the history it was given.
  #history: readonly string[] = []
  #tail: readonly Message[] = []
  #records: AttemptRecord[] = []
  readonly #call: ProviderCall
  readonly #guard: DecisionGuard | undefined
  readonly #schema: CompiledSchema<T> | undefined
  #transientFailures = 0
  #breakerListener: ((t: BreakerTransition) => void) | undefined
  #base: ModelRequest

  constructor(g: GateInternals<T>, request: ModelRequest, options: GateRunOptions, hooks: RunHooks = {}) {
    this.#g = g
    this.#call = hooks.call ?? plainCall
    this.#guard = hooks.guardDecision
    this.#schema = options.validateOutput === false ? undefined : g.schema
    this.#request = request
    this.#signal = options.signal ?? request.signal
    this.#started = g.now()
    this.#base = this.#baseFor(0)
  }

  async run(): Promise<GateResult<T>> {
    const g = this.#g
    for (;;) {
      if (g.preCheck.length > 0) this.#preCheck()
      if (this.#signal?.aborted === true) throw this.#fail('aborted', 'the run was aborted before the attempt started', 'pre-check', this.#signal.reason)
      if (g.budget !== undefined) await this.#checkBudget(g.budget)

      const outcome = await this.#attemptOnce()
      // The scope is a ~22-field snapshot: without PostDecide rules to read it, it is built only if a
      // retry or a fallback below needs it.
      let scope = g.postDecide.length > 0 ? this.#scope('post-decide', outcome) : undefined
      const rule = scope !== undefined ? firstMatchingRule(g.postDecide, scope, (r, e) => this.#ruleError(r, 'when', e)) : undefined
      let decision: Decision = rule !== undefined ? rule.then : outcome.kind === 'ok' ? 'ok' : 'fail-fast'
      // A cancelled run is never retried, and `ok` needs an answer to return.
      if (outcome.kind === 'aborted' || (decision === 'ok' && outcome.response === undefined)) decision = 'fail-fast'
      let ruleKind = rule !== undefined && decision === rule.then ? rule.kind : outcome.kind
      const guarded = this.#guard?.(decision, ruleKind)
      if (guarded !== undefined) {
        decision = guarded.decision
        ruleKind = guarded.kind
      }
      this.#emitDecision(decision, ruleKind, rule, 'post-decide')

      switch (decision) {
        case 'ok':
          this.#record(outcome, decision, ruleKind, rule, undefined)
          return this.#succeed(outcome.response as ModelResponse, outcome.value, outcome.failure, false)
        case 'retry':
        case 'retry-other':
          await this.#retry(decision, rule, (scope ??= this.#scope('post-decide', outcome)), outcome, ruleKind)
          continue
        case 'fallback':
          this.#record(outcome, decision, ruleKind, rule, undefined)
          return this.#useFallback((scope ??= this.#scope('post-decide', outcome)), ruleKind)
        case 'fail-fast':
          this.#record(outcome, decision, ruleKind, rule, undefined)
          throw this.#fail(ruleKind, this.#reasonFor(outcome, rule), 'post-decide', outcome.error, outcome.failure)
      }
    }
  }

  #preCheck(): void {
    const scope = this.#scope('pre-check', undefined)
    const rule = firstMatchingRule(this.#g.preCheck, scope, (r, e) => this.#ruleError(r, 'when', e))
    if (rule === undefined) return
    this.#emitDecision(rule.then, rule.kind, rule, 'pre-check')
    if (isBudgetRule(rule) && this.#g.events.has('budget_exceeded')) {
      this.#g.events.emit('budget_exceeded', { budgetUsd: rule.budgetUsd, spentUsd: this.#costUsd, action: rule.then === 'fail-fast' ? 'halt' : 'warn' })
    }
    if (rule.then === 'fail-fast') {
      throw this.#fail(rule.kind, `PreCheck rule ${rule.label ?? rule.kind} stopped attempt ${this.#attempt + 1} before the provider was called`, 'pre-check')
    }
  }

  async #attemptOnce(): Promise<AttemptOutcome<T>> {
    const g = this.#g
    const entry = g.providers[this.#providerIdx] as ResolvedProvider
    const attemptNo = this.#attempt + 1
    if (g.events.has('attempt_start')) {
      g.events.emit('attempt_start', { attempt: attemptNo, provider: entry.name, providerIdx: this.#providerIdx, model: this.#base.model })
    }
    // Only a configured breaker costs an await; without one this stays the plain call.
    // A full shared rate-limit window ends the attempt before the breaker is asked: no probe is spent on it.
    const limited = g.rateLimit !== undefined ? await rateLimitError(g.rateLimit, entry.name) : undefined
    const permit = g.breaker !== undefined && limited === undefined ? await acquirePermit(g.breaker, entry.name, this.#onBreakerTransition) : undefined
    const t0 = g.now()
    let response: ModelResponse | undefined
    let error: unknown
    let kind: ErrorKind = 'ok'
    let retryAfterMs: number | undefined
    try {
      if (limited !== undefined) throw limited
      if (permit !== undefined && !permit.allowed) {
        throw new ProviderError(`the circuit breaker of provider "${entry.name}" is open`, { kind: 'circuit-open', provider: entry.name, ...(permit.retryAfterMs !== undefined ? { retryAfterMs: permit.retryAfterMs } : {}) })
      }
      response = await this.#call(entry, withTail(this.#base, this.#tail), this.#signal, g.timeoutMs, attemptNo)
    } catch (e) {
      error = e
      const classified = classifyError(e)
      kind = this.#signal?.aborted === true ? 'aborted' : classified.kind
      retryAfterMs = classified.retryAfterMs
      if (isTransientKind(kind)) this.#transientFailures++
    }
    const latencyMs = g.now() - t0
    this.#retryAfterMs = retryAfterMs
    if (permit?.allowed === true) await recordResult(g.breaker as CircuitBreaker, entry.name, permit, breakerResult(error, kind), this.#onBreakerTransition)

    let failure: ValidationFailure | undefined
    let value: T | string | undefined
    let repairs = NO_REPAIRS
    let usage: Usage = ZERO_USAGE
    let costUsd = 0
    if (response !== undefined) {
      usage = response.usage ?? ZERO_USAGE
      costUsd = g.priceUsage?.(usage, this.#base.model, entry.name) ?? 0
      this.#usage = addUsage(this.#usage, usage)
      this.#costUsd += costUsd
      this.#lastCostUsd = costUsd
      if (g.events.has('cost_tick')) {
        g.events.emit('cost_tick', { attempt: attemptNo, provider: entry.name, model: this.#base.model, attemptCostUsd: costUsd, cumulativeCostUsd: this.#costUsd, usage })
      }
      if (g.budget !== undefined && costUsd > 0) await this.#chargeBudget(g.budget, costUsd)
      let check = checkResponse(response, this.#schema, g.repair)
      if (check instanceof Promise) check = await check
      ;({ kind, value, failure, repairs } = check)
      if (repairs.length > 0 && g.events.has('repaired')) g.events.emit('repaired', { attempt: attemptNo, provider: entry.name, repairs })
      if (failure !== undefined) this.#validationFailed(failure, attemptNo)
    }
    if (g.events.has('attempt_end')) {
      g.events.emit('attempt_end', { attempt: attemptNo, provider: entry.name, errorKind: kind, latencyMs, usage })
    }
    return { response, error, kind, retryAfterMs, failure, value, repairs, latencyMs, usage, costUsd }
  }

  #validationFailed(failure: ValidationFailure, attemptNo: number): void {
    this.#history = this.#history.concat(failure.message)
    if (this.#g.events.has('validation_failed')) {
      this.#g.events.emit('validation_failed', {
        message: failure.message,
        stage: failure.stage,
        path: failure.path,
        rawOutput: failure.rawOutput,
        issues: failure.issues,
        attempt: attemptNo,
        cumulativeRetries: this.#history.length,
      })
    }
  }

  async #retry(
    decision: 'retry' | 'retry-other',
    rule: ReliabilityRule | undefined,
    scope: ReliabilityScope,
    outcome: AttemptOutcome<T>,
    ruleKind: string,
  ): Promise<void> {
    const g = this.#g
    if (this.#attempt + 1 >= g.maxAttempts) {
      this.#record(outcome, 'fail-fast', 'max-attempts', rule, undefined)
      throw this.#fail('max-attempts', `the safety cap of ${g.maxAttempts} attempts was reached`, 'post-decide', outcome.error, outcome.failure)
    }
    if (decision === 'retry-other' && this.#providerIdx + 1 >= g.providers.length) {
      this.#record(outcome, 'fail-fast', 'no-more-providers', rule, undefined)
      throw this.#fail('no-more-providers', `no provider left after ${g.providers[this.#providerIdx]?.name} (${outcome.kind})`, 'post-decide', outcome.error, outcome.failure)
    }
    const delayMs = this.#delayFor(rule, scope)
    // Retrying an open breaker without waiting out its cooldown would only spin to the safety cap.
    if (outcome.kind === 'circuit-open' && decision === 'retry' && !(delayMs >= (outcome.retryAfterMs ?? Number.POSITIVE_INFINITY))) {
      this.#record(outcome, 'fail-fast', 'circuit-open', rule, undefined)
      throw this.#fail('circuit-open', `the circuit breaker of provider "${g.providers[this.#providerIdx]?.name}" is open and no rule failed over or waited out its cooldown`, 'post-decide', outcome.error)
    }
    const feedback = await this.#nextTail(rule, scope, outcome)
    this.#record(outcome, decision, ruleKind, rule, feedback)

    const from = g.providers[this.#providerIdx] as ResolvedProvider
    if (decision === 'retry-other') {
      this.#providerIdx++
      this.#base = this.#baseFor(this.#providerIdx)
    }
    // A rule may change the next request, e.g. retryTruncated asks for a larger maxTokens.
    this.#base = adjustRequestFor(rule, scope, this.#base)
    const to = g.providers[this.#providerIdx] as ResolvedProvider
    if (g.events.has('retry')) {
      g.events.emit('retry', { attempt: this.#attempt + 1, nextAttempt: this.#attempt + 2, decision, fromProvider: from.name, toProvider: to.name, delayMs, feedback })
    }
    this.#attempt++
    if (delayMs > 0) {
      try {
        await abortableDelay(delayMs, this.#signal)
      } catch (error) {
        throw this.#fail('aborted', 'the run was aborted while waiting to retry', 'post-decide', error)
      }
    }
  }

  /** Builds the next ephemeral tail and returns the feedback it carries. */
  async #nextTail(rule: ReliabilityRule | undefined, scope: ReliabilityScope, outcome: AttemptOutcome<T>): Promise<string | undefined> {
    const g = this.#g
    if (!g.errorFeedback) {
      this.#tail = []
      return undefined
    }
    let feedback: string | undefined
    if (rule?.feedbackForLLM !== undefined) {
      feedback = await resolveFeedback(rule.feedbackForLLM, scope, (e) => this.#ruleError(rule, 'feedbackForLLM', e))
    } else if (outcome.failure !== undefined) {
      feedback = buildValidationFeedback(outcome.failure, this.#feedbackContext())
    }
    if (feedback === undefined) return undefined
    const pair: readonly Message[] =
      outcome.response !== undefined
        ? // The echo reads only the two limits, which the settled config carries: no context to build.
          validationTail(echoPreviousOutput(outcome.response.content, g), feedback)
        : [{ role: 'user', content: feedback, ephemeral: true }]
    this.#tail = g.feedbackMode === 'accumulate' ? this.#tail.concat(pair) : pair
    return feedback
  }

  /** Built at most once per retry, and only when the built-in feedback or a template is rendered. */
  #feedbackContext(): FeedbackContext {
    const g = this.#g
    const attempt = this.#attempt + 1
    return {
      attempt,
      retryHint: g.retryHint,
      errorTemplate: g.errorTemplate,
      maxFeedbackChars: g.maxFeedbackChars,
      maxFeedbackTokens: g.maxFeedbackTokens,
      onTemplateError: (error: unknown) => {
        if (g.events.has('template_error')) g.events.emit('template_error', { attempt, error })
      },
    }
  }

  async #useFallback(scope: ReliabilityScope, ruleKind: string): Promise<GateResult<T>> {
    const g = this.#g
    if (g.fallback === undefined) throw this.#fail('no-fallback', `rule ${ruleKind} decided fallback, but no fallback is configured`, 'post-decide')
    if (g.events.has('fallback')) g.events.emit('fallback', { attempt: this.#attempt + 1, kind: ruleKind })
    const verdict = await runFallback(g.fallback, scope, this.#schema, g.repair)
    if (!verdict.ok) throw this.#fail(verdict.kind, verdict.reason, 'post-decide', verdict.cause, verdict.failure)
    return this.#succeed(verdict.response, verdict.value, undefined, true)
  }

  #succeed(response: ModelResponse, value: T | string | undefined, warnings: ValidationFailure | undefined, fromFallback: boolean): GateResult<T> {
    const g = this.#g
    const failed = this.#records.length - 1
    const provider = fromFallback ? 'fallback' : (g.providers[this.#providerIdx] as ResolvedProvider).name
    if (failed > 0 && g.events.has('recovered')) {
      g.events.emit('recovered', { attempt: this.#attempt + 1, failedAttempts: failed, provider })
    }
    return {
      response,
      // Partial mode: a rule accepted an answer that failed its schema; hand back what was parsed.
      value: (value ?? warnings?.parsed) as T,
      attempts: this.#records,
      lastAttempt: this.#records[this.#records.length - 1] as AttemptRecord,
      usage: this.#usage,
      costUsd: this.#costUsd,
      provider,
      fromFallback,
      warnings,
    }
  }

  #record(outcome: AttemptOutcome<T>, decision: Decision, ruleKind: string, rule: ReliabilityRule | undefined, feedbackSent: string | undefined): void {
    const record = attemptRecord(outcome, {
      attempt: this.#attempt + 1,
      provider: (this.#g.providers[this.#providerIdx] as ResolvedProvider).name,
      model: this.#base.model,
      decision,
      ruleKind,
      rule,
      feedbackSent,
      elapsedMs: this.#g.now() - this.#started,
    })
    // Most runs log a single attempt: a one-slot array rather than an empty one grown to 17 slots.
    if (this.#records.length === 0) this.#records = [record]
    else this.#records.push(record)
  }

  #scope(phase: Phase, outcome: AttemptOutcome<T> | undefined): ReliabilityScope {
    const g = this.#g
    const entry = g.providers[this.#providerIdx] as ResolvedProvider
    const f = outcome?.failure
    return {
      phase,
      attempt: this.#attempt,
      request: this.#request,
      providerIdx: this.#providerIdx,
      providerName: entry.name,
      providersCount: g.providers.length,
      canSwitchProvider: this.#providerIdx + 1 < g.providers.length,
      response: outcome?.response,
      error: outcome?.error,
      errorKind: outcome?.kind ?? 'ok',
      latencyMs: outcome?.latencyMs ?? 0,
      validationError: f === undefined ? undefined : { message: f.message, stage: f.stage, path: f.path, issues: f.issues, rawOutput: f.rawOutput },
      validationErrorHistory: this.#history,
      usage: this.#usage,
      costUsd: this.#costUsd,
      cumulativeInputTokens: this.#usage.inputTokens,
      cumulativeOutputTokens: this.#usage.outputTokens,
      cumulativeCostUsd: this.#costUsd,
      lastAttemptCostUsd: this.#lastCostUsd,
      elapsedMs: g.now() - this.#started,
      retryAfterMs: this.#retryAfterMs,
      transientFailures: this.#transientFailures,
    }
  }

  /** Made on first use, so that a gate without a breaker allocates no listener per attempt. */
  get #onBreakerTransition(): (t: BreakerTransition) => void {
    return (this.#breakerListener ??= (t) => this.#breakerChanged(t))
  }

  #breakerChanged(t: BreakerTransition): void {
    if (this.#g.events.has('breaker_state')) this.#g.events.emit('breaker_state', { provider: t.provider, from: t.from, to: t.to, failures: t.failures })
  }

  /** A spent shared budget stops the run before the provider is called. */
  async #checkBudget(budget: SharedBudget): Promise<void> {
    let spent: number
    try {
      spent = await budget.spent()
    } catch (error) {
      throw this.#fail('unknown', `the shared budget "${budget.key}" could not be read: ${messageOf(error)}`, 'pre-check', error)
    }
    if (spent < budget.usd - BUDGET_TOLERANCE_USD) return
    if (this.#g.events.has('budget_exceeded')) this.#g.events.emit('budget_exceeded', { budgetUsd: budget.usd, spentUsd: spent, action: 'halt' })
    throw this.#fail('budget-exceeded', `the shared budget "${budget.key}" of $${budget.usd} is spent ($${spent}) before attempt ${this.#attempt + 1}`, 'pre-check')
  }

  async #chargeBudget(budget: SharedBudget, costUsd: number): Promise<void> {
    try {
      await budget.charge(costUsd)
    } catch (error) {
      throw this.#fail('unknown', `the shared budget "${budget.key}" could not be charged: ${messageOf(error)}`, 'post-decide', error)
    }
  }

  /** The caller's request without its signal, with the provider's model and the output JSON Schema. */
  #baseFor(providerIdx: number): ModelRequest {
    const entry = this.#g.providers[providerIdx] as ResolvedProvider
    const request = this.#request
    const model = entry.model ?? request.model
    const responseSchema = request.responseSchema ?? this.#schema?.jsonSchema
    // Every run builds a base: when nothing is stripped or filled in, the caller's request (never
    // mutated) is the base, with no copy at all.
    if (!('signal' in request) && model === request.model && responseSchema === request.responseSchema) return request
    // Otherwise one shallow copy filled in place, rather than a rest copy spread into another object.
    let base: { -readonly [K in keyof ModelRequest]: ModelRequest[K] }
    if ('signal' in request) {
      const { signal: _signal, ...rest } = request
      base = rest
    } else {
      base = { ...request }
    }
    if (model !== undefined) base.model = model
    if (responseSchema !== undefined) base.responseSchema = responseSchema
    return base
  }

  #delayFor(rule: ReliabilityRule | undefined, scope: ReliabilityScope): number {
    const d = rule?.delayMs
    if (d === undefined) return 0
    if (typeof d === 'number') return Math.max(0, d)
    try {
      const ms = d(scope)
      return Number.isFinite(ms) && ms > 0 ? ms : 0
    } catch (error) {
      this.#ruleError(rule as ReliabilityRule, 'delayMs', error)
      return 0
    }
  }

  #emitDecision(decision: Decision, kind: string, rule: ReliabilityRule | undefined, phase: Phase): void {
    if (!this.#g.events.has('decision')) return
    this.#g.events.emit('decision', { attempt: this.#attempt + 1, phase, decision, kind, label: rule?.label, matched: rule !== undefined })
  }

  #ruleError(rule: ReliabilityRule, where: 'when' | 'feedbackForLLM' | 'delayMs', error: unknown): void {
    if (this.#g.events.has('rule_error')) this.#g.events.emit('rule_error', { attempt: this.#attempt + 1, kind: rule.kind, where, error })
  }

  #reasonFor(outcome: AttemptOutcome<T>, rule: ReliabilityRule | undefined): string {
    const by = rule !== undefined ? `rule ${rule.label ?? rule.kind} decided fail-fast` : 'no rule handled it'
    if (outcome.failure !== undefined) return `the answer failed validation (${outcome.failure.message}); ${by}`
    if (outcome.error !== undefined) return `provider call failed (${outcome.kind}: ${messageOf(outcome.error)}); ${by}`
    return by
  }

  #fail(kind: string, reason: string, phase: Phase, cause?: unknown, validationError?: ValidationFailure): ReliabilityFailFastError {
    const error = new ReliabilityFailFastError({
      kind,
      reason,
      phase,
      attempts: this.#records,
      usage: this.#usage,
      costUsd: this.#costUsd,
      validationError,
      cause,
    })
    if (this.#g.events.has('fail_fast')) this.#g.events.emit('fail_fast', { attempt: this.#attempt + 1, kind, reason, phase })
    return error
  }
}
