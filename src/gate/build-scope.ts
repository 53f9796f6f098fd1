import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import type { ErrorKind } from '../model/error-kind.ts'
import type { Phase, ReliabilityScope, ScopeValidationError } from '../rules/scope.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import type { AttemptRecord } from './attempt-record.ts'
import { frozenBaseRequest, frozenCallerRequest } from './frozen-attempt-request.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import type { RunView } from './run/run-view.ts'

/**
 * The readonly snapshot rules see. `attempt` counts the attempts made so far, as in agentfootprint:
 * 0 at PreCheck before the first call, 1 at PostDecide after it. What it shares with the run is
 * frozen (the validation history and its signatures, the issues, the requests) or copied (the
 * usage), so a rule that edits its scope changes neither the run's count, nor its stuck-loop
 * detection, nor the caller's request or what is sent.
 */
export function scopeOf<T>(s: RunView<T>, phase: Phase, outcome: AttemptOutcome<T> | undefined): ReliabilityScope {
  return new RuleScope(s, phase, outcome)
}

/**
 * A scope of one run: its fields are the snapshot's; `request` and `attemptRequest` are frozen copies
 * made the first time a rule reads them (once per run: an edit in place reaches neither the caller's
 * conversation nor what the next attempt sends). They are getters of the class, shared by every
 * scope: a getter written into each scope (an object literal's) gave every scope a shape of its own,
 * slower to make and to read (the (c) benchmark row went from 1.55x to 2.17x, and a 100,000-run soak
 * kept 2 MiB more). `toJSON` writes them too, so a logged scope shows what a rule reads.
 */
class RuleScope<T> implements ReliabilityScope {
  readonly #run: RunView<T>
  readonly #sentBase: ModelRequest
  readonly phase!: Phase
  readonly attempt!: number
  readonly runId!: string
  readonly attemptTail!: readonly Message[]
  readonly providerIdx!: number
  readonly providerName!: string
  readonly providersCount!: number
  readonly canSwitchProvider!: boolean
  readonly response!: ModelResponse | undefined
  readonly error!: unknown
  readonly errorKind!: ErrorKind
  readonly latencyMs!: number
  readonly validationError!: ScopeValidationError | undefined
  readonly validationErrorHistory!: readonly string[]
  readonly validationErrorSignatures!: readonly string[]
  readonly usage!: Usage
  readonly cumulativeInputTokens!: number
  readonly cumulativeOutputTokens!: number
  readonly cumulativeCostUsd!: number
  readonly lastAttemptCostUsd!: number
  readonly unpricedAttempts!: number
  readonly elapsedMs!: number
  readonly retryAfterMs!: number | undefined
  readonly transientFailures!: number
  readonly value!: unknown

  constructor(s: RunView<T>, phase: Phase, outcome: AttemptOutcome<T> | undefined) {
    const g = s.g
    const f = outcome?.failure
    // A copy: the meter's own object (an answer's usage, after one attempt) must not be edited by a rule.
    const usage = { ...s.meter.usage }
    this.#run = s
    this.#sentBase = s.base
    // The scope's own snapshot fields, written once here (not the run's state, which only the run loop writes).
    const own = this as { -readonly [K in keyof ReliabilityScope]: ReliabilityScope[K] }
    own.phase = phase
    own.attempt = outcome === undefined ? s.attempt : s.attempt + 1
    own.runId = s.runId
    own.attemptTail = s.tail
    own.providerIdx = s.providerIdx
    own.providerName = (g.providers[s.providerIdx] as ResolvedProvider).name
    own.providersCount = g.providers.length
    own.canSwitchProvider = s.providerIdx + 1 < g.providers.length
    own.response = outcome?.response
    own.error = outcome?.error
    own.errorKind = outcome?.kind ?? 'ok'
    own.latencyMs = outcome?.latencyMs ?? 0
    own.validationError =
      f === undefined ? undefined : { message: f.message, stage: f.stage, path: f.path, issues: f.issues, rawOutput: f.rawOutput, signature: f.signature }
    own.validationErrorHistory = s.history
    own.validationErrorSignatures = s.signatures
    own.usage = usage
    own.cumulativeInputTokens = usage.inputTokens
    own.cumulativeOutputTokens = usage.outputTokens
    own.cumulativeCostUsd = s.meter.costUsd
    own.lastAttemptCostUsd = s.meter.lastCostUsd
    own.unpricedAttempts = s.meter.unpricedAttempts
    // After an attempt its end time is now; before one, a retry delay may have passed.
    own.elapsedMs = (outcome === undefined ? g.now() : s.lastTime) - s.started
    own.retryAfterMs = s.retryAfterMs
    own.transientFailures = s.transientFailures
    own.value = outcome?.value
  }

  get request(): ModelRequest {
    return frozenCallerRequest(this.#run)
  }

  get attemptRequest(): ModelRequest {
    return frozenBaseRequest(this.#run, this.#sentBase)
  }

  // agentfootprint's names, as getters of the class: a run whose rules never read them pays nothing.
  get currentProvider(): string {
    return this.providerName
  }

  get hasFallback(): boolean {
    return this.#run.g.fallback !== undefined
  }

  get attemptsPerProvider(): Readonly<Record<string, number>> {
    const counts: Record<string, number> = Object.create(null)
    // The attempts before this scope's (the run records more after it: a scope read later still says what it said).
    const current = this.phase === 'post-decide'
    const records = this.#run.records
    const before = Math.min(current ? this.attempt - 1 : this.attempt, records.length)
    for (let i = 0; i < before; i++) {
      const provider = (records[i] as AttemptRecord).provider
      counts[provider] = (counts[provider] ?? 0) + 1
    }
    // At PostDecide this attempt is not recorded yet (its decision is being taken).
    if (current) counts[this.providerName] = (counts[this.providerName] ?? 0) + 1
    return Object.freeze(counts)
  }

  toJSON(): object {
    const { request, attemptRequest, currentProvider, hasFallback, attemptsPerProvider } = this
    return { ...this, request, attemptRequest, currentProvider, hasFallback, attemptsPerProvider }
  }
}
