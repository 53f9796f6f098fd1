import { FailFastKinds, type FailFastKind } from '../../model/fail-fast-kind.ts'
import type { Message } from '../../model/message.ts'
import type { ModelRequest } from '../../model/request.ts'
import { isRejectionKind } from '../../model/classify-rejection.ts'
import { adjustRequestFor, changedRequest } from '../../rules/adjust-request.ts'
import type { ReliabilityRule } from '../../rules/rule.ts'
import type { AttemptOutcome } from '../attempt-outcome.ts'
import { baseFor } from '../base-request.ts'
import { frozenBaseRequest } from '../frozen-attempt-request.ts'
import { nextTail } from '../next-tail.ts'
import type { ResolvedProvider } from '../resolved-provider.ts'
import { reportRuleError } from '../rule-error.ts'
import { ruleDelay } from '../rule-delay.ts'
import type { Verdict } from './decide.ts'
import type { RunView } from './run-view.ts'

/** What a retry decision comes to: the next attempt's provider, request, tail and wait, or why there is none. */
export type RetryPlan =
  | {
      readonly go: true
      readonly providerIdx: number
      readonly base: ModelRequest
      readonly tail: readonly Message[]
      readonly feedback: string | undefined
      readonly delayMs: number
    }
  | { readonly go: false; readonly kind: FailFastKind; readonly reason: string }

/**
 * Plans the attempt after a `retry` or `retry-other` decision: the safety cap and the provider list
 * first, then the rule's delay (an open breaker is retried only after its cooldown), the ephemeral
 * tail with its feedback, the provider and the request (a rule may adjust it, e.g. retryTruncated's
 * larger `maxTokens`). Changes nothing: the loop applies the plan.
 */
export async function planRetry<T>(run: RunView<T>, verdict: Verdict & { readonly act: 'retry' }, outcome: AttemptOutcome<T>): Promise<RetryPlan> {
  const { decision, rule, scope } = verdict
  const g = run.g
  const from = g.providers[run.providerIdx] as ResolvedProvider
  if (run.attempt + 1 >= g.maxAttempts) return { go: false, kind: FailFastKinds.MaxAttempts, reason: `the safety cap of ${g.maxAttempts} attempts was reached` }
  if (decision === 'retry-other' && run.providerIdx + 1 >= g.providers.length) {
    return { go: false, kind: FailFastKinds.NoMoreProviders, reason: `no provider left after ${from.name} (${outcome.kind})` }
  }
  // Refused credentials go with every request to that provider: a retry there only pays the refusal again.
  if (outcome.kind === 'auth' && decision === 'retry') {
    return {
      go: false,
      kind: FailFastKinds.Auth,
      reason: `provider "${from.name}" refused the credentials (auth) and a retry there would send them again: refused credentials are never retried on the same provider (failoverRule() fails over)`,
    }
  }
  const onError = (error: unknown): void => reportRuleError(run, rule as ReliabilityRule, 'delayMs', error)
  const durable = run.settings.durable
  // A durable run's jitter is seeded from its id and attempt: a replay waits (and reports) what its first execution did.
  const asked =
    durable === undefined ? ruleDelay(rule, scope, onError, run.signal) : durable.delay(run.attempt, () => ruleDelay(rule, scope, onError, run.signal))
  // A delay function answering a promise is awaited (bounded by the run's signal); a number is taken as it is, with no tick.
  const delayMs = typeof asked === 'number' ? asked : await asked
  // Retrying an open breaker without waiting out its cooldown would only spin to the safety cap.
  if (outcome.kind === 'circuit-open' && decision === 'retry' && !(delayMs >= (outcome.retryAfterMs ?? Number.POSITIVE_INFINITY))) {
    return {
      go: false,
      kind: FailFastKinds.CircuitOpen,
      reason: `the circuit breaker of provider "${from.name}" is open and no rule failed over or waited out its cooldown`,
    }
  }
  const { feedback, tail } = await nextTail(run, rule, scope, outcome)
  if (run.signal?.aborted === true)
    return { go: false, kind: FailFastKinds.Aborted, reason: 'the run was aborted while the feedback for the next attempt was being built' }
  const providerIdx = decision === 'retry-other' ? run.providerIdx + 1 : run.providerIdx
  const before = { base: providerIdx === run.providerIdx ? run.base : baseFor(run, providerIdx, run.base.messages), tail }
  const next = adjustRequestFor(rule, scope, before, (request) => frozenBaseRequest(run, request))
  // A request the provider refused as written is never sent to it again unchanged: only a rule
  // that changes it (trims the history, drops the echo, lowers maxTokens, another model) or a
  // move to another provider gets another attempt.
  if (isRejectionKind(outcome.kind) && providerIdx === run.providerIdx && !changedRequest({ base: run.base, tail: run.tail }, next)) {
    return {
      go: false,
      kind: outcome.kind,
      reason: `provider "${from.name}" refused the request (${outcome.kind}) and no rule changed it: a refused request is never re-sent unchanged`,
    }
  }
  return { go: true, providerIdx, base: next.base, tail: next.tail, feedback, delayMs }
}

/** A retry as `retry` reports it: its decision, the provider it leaves, its wait and the feedback sent. */
export interface RetryReport {
  readonly decision: 'retry' | 'retry-other'
  readonly from: string
  readonly delayMs: number
  readonly feedback: string | undefined
}

/** Emits `retry` once the loop applied its plan (the run's provider and tail are the next attempt's). */
export function emitRetry<T>(run: RunView<T>, report: RetryReport): void {
  const events = run.g.events
  if (!events.has('retry')) return
  events.emit('retry', {
    runId: run.runId,
    ...run.tags,
    attempt: run.attempt + 1,
    nextAttempt: run.attempt + 2,
    decision: report.decision,
    fromProvider: report.from,
    toProvider: (run.g.providers[run.providerIdx] as ResolvedProvider).name,
    delayMs: report.delayMs,
    feedback: report.feedback,
    tail: run.tail,
  })
}
