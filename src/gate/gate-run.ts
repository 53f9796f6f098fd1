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
import type { GateInternals, GateRunOptions, RunHooks } from './gate-internals.ts'
import type { GateResult } from './gate-result.ts'
import { nextTail } from './next-tail.ts'
import { recordAttempt } from './record-attempt.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { settleAttempt, startAttempt } from './run-attempt.ts'
import type { RunState } from './run-state.ts'

export type { DecisionGuard, GateInternals, GateRunOptions, RunHooks } from './gate-internals.ts'

/**
 * One `gate.run`: the loop of DESIGN.md over the attempt chain. Per attempt: PreCheck, the chain
 * (policies, links, provider call, meter, check; events before any decision), PostDecide, act. A
 * hard cap on attempts always holds.
 */
export class GateRun<T> {
  readonly #s: RunState<T>

  constructor(g: GateInternals<T>, request: ModelRequest, options: GateRunOptions, hooks: RunHooks = {}) {
    const started = g.now()
    const signal = options.signal ?? request.signal
    this.#s = {
      g,
      request,
      signal,
      runId: options.runId ?? newRunId(),
      metadata: options.metadata,
      schema: options.validateOutput === false ? undefined : g.schema,
      call: hooks.call ?? g.call,
      direct: !g.linked && hooks.call === undefined,
      guard: hooks.guardDecision,
      meter: new RunMeter(g.priceUsage),
      started,
      attempt: 0,
      providerIdx: 0,
      base: request,
      tail: [],
      history: [],
      records: [],
      retryAfterMs: undefined,
      transientFailures: 0,
      lastTime: started,
      attemptStarted: started,
    }
    this.#s.base = baseFor(this.#s, 0)
  }

  async run(): Promise<GateResult<T>> {
    const s = this.#s
    const g = s.g
    for (;;) {
      if (g.preCheck.length > 0) this.#preCheck()
      if (s.signal?.aborted === true) throw failFast(s, 'aborted', 'the run was aborted before the attempt started', 'pre-check', s.signal.reason)

      let result: unknown
      let error: unknown
      let failed = false
      try {
        result = await startAttempt(s)
      } catch (e) {
        error = e
        failed = true
      }
      let outcome = settleAttempt(s, result, error, failed)
      if (outcome instanceof Promise) outcome = await outcome
      // The scope is a ~24-field snapshot: without PostDecide rules to read it, it is built only if a
      // retry or a fallback below needs it.
      let scope = g.postDecide.length > 0 ? scopeOf(s, 'post-decide', outcome) : undefined
      const rule = scope !== undefined ? firstMatchingRule(g.postDecide, scope, (r, e) => this.#ruleError(r, 'when', e)) : undefined
      let decision: Decision = rule !== undefined ? rule.then : outcome.kind === 'ok' ? 'ok' : 'fail-fast'
      // A cancelled run is never retried, and `ok` needs an answer to return.
      if (outcome.kind === 'aborted' || (decision === 'ok' && outcome.response === undefined)) decision = 'fail-fast'
      let ruleKind = rule !== undefined && decision === rule.then ? rule.kind : outcome.kind
      const guarded = s.guard?.(decision, ruleKind)
      if (guarded !== undefined) {
        decision = guarded.decision
        ruleKind = guarded.kind
      }
      this.#emitDecision(decision, ruleKind, rule, 'post-decide')

      switch (decision) {
        case 'ok':
          recordAttempt(s, outcome, decision, ruleKind, rule, undefined)
          return succeed(s, outcome.response as ModelResponse, outcome.value, outcome.failure, false)
        case 'retry':
        case 'retry-other':
          await this.#retry(decision, rule, (scope ??= scopeOf(s, 'post-decide', outcome)), outcome, ruleKind)
          continue
        case 'fallback':
          recordAttempt(s, outcome, decision, ruleKind, rule, undefined)
          return useFallback(s, (scope ??= scopeOf(s, 'post-decide', outcome)), ruleKind)
        case 'fail-fast':
          recordAttempt(s, outcome, decision, ruleKind, rule, undefined)
          throw failFast(s, ruleKind, reasonFor(outcome, rule), 'post-decide', outcome.error, outcome.failure)
      }
    }
  }

  #preCheck(): void {
    const s = this.#s
    const scope = scopeOf(s, 'pre-check', undefined)
    const rule = firstMatchingRule(s.g.preCheck, scope, (r, e) => this.#ruleError(r, 'when', e))
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

  async #retry(decision: 'retry' | 'retry-other', rule: ReliabilityRule | undefined, scope: ReliabilityScope, outcome: AttemptOutcome<T>, ruleKind: string): Promise<void> {
    const s = this.#s
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
    const s = this.#s
    if (!s.g.events.has('decision')) return
    s.g.events.emit('decision', { runId: s.runId, attempt: s.attempt + 1, phase, decision, kind, label: rule?.label, matched: rule !== undefined })
  }

  #ruleError(rule: ReliabilityRule, where: 'when' | 'feedbackForLLM' | 'delayMs', error: unknown): void {
    const s = this.#s
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
