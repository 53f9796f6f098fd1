import type { EventTags } from '../../events/event-map.ts'
import { newRunId } from '../../events/run-id.ts'
import { FailFastKinds } from '../../model/fail-fast-kind.ts'
import type { Message } from '../../model/message.ts'
import type { ModelRequest } from '../../model/request.ts'
import { sleep } from '../../policies/deadline/sleep.ts'
import { type MeterTotals, RunMeter } from '../../policies/meter.ts'
import { isThenable } from '../../model/user-code.ts'
import { ZERO_USAGE } from '../../model/usage.ts'
import { acceptedDecision, attemptRecord, type AttemptOutcome, type RecordDecision } from '../attempt-outcome.ts'
import type { AttemptRecord } from '../attempt-record.ts'
import { baseFor } from '../base-request.ts'
import { failFast, type RunStop } from '../fail-fast.ts'
import type { ReliabilityFailFastError } from '../fail-fast-error.ts'
import { succeed, useFallback } from '../finish-run.ts'
import type { GateInternals, GateRunOptions, RunHooks } from '../gate-internals.ts'
import type { GateResult } from '../gate-result.ts'
import type { ResolvedProvider } from '../resolved-provider.ts'
import { type AttemptTaken, endAttempt, isTransientFailure, startAttempt } from './attempt.ts'
import { RetryState } from './retry-state.ts'
import type { GateAttempt } from './gate-attempt.ts'
import { decide, preCheck, type PreVerdict, type Verdict } from './decide.ts'
import { emitRetry, planRetry } from './retry-plan.ts'
import { runDeadline, sharedDeadline } from './run-deadline.ts'
import { type RunSettings, settingsOf } from './run-settings.ts'
import { keepShape } from '../../model/keep-shape.ts'
import type { RunView } from './run-view.ts'

const NONE: readonly never[] = Object.freeze([])

/** A run of a gate, made: `run(messages)` starts it on `messages`, the array the request's check validated (the run never reads the caller's again). */
export interface GateRun<T> {
  run(messages: readonly Message[]): Promise<GateResult<T>>
}

/**
 * One `gate.run` (and `gate.stream`, with its own terminal and guard) of `g` for `request`, with its options and hooks.
 * Per attempt: PreCheck, the attempt (its chain: deadline, check, policies, meter, the user's links, the provider; events
 * before any decision), PostDecide, act on the verdict. A hard cap on attempts always holds.
 */
export function gateRun<T>(g: GateInternals<T>, request: ModelRequest, options: GateRunOptions, hooks?: RunHooks): GateRun<T> {
  return new GateLoop(g, request, options, hooks)
}

/** The loop of one run. Its state is private: every step reads it through {@link RunView} and returns what changed. */
class GateLoop<T> implements RunView<T>, GateRun<T> {
  readonly g: GateInternals<T>
  readonly request: ModelRequest
  readonly signal: AbortSignal | undefined
  readonly runId: string
  readonly started: number
  readonly #settings: RunSettings<T>
  readonly #meter = new RunMeter()
  #attempt = 0
  #providerIdx = 0
  #base: ModelRequest
  #records: AttemptRecord[] | undefined = undefined
  #retries: RetryState | undefined = undefined
  #lastTime: number

  /** A run of `g` for `request`, with its options and hooks: its deadline, signal, settings, id and start. */
  constructor(g: GateInternals<T>, request: ModelRequest, options: GateRunOptions, hooks: RunHooks | undefined) {
    const runTimeoutMs = options.runTimeoutMs ?? g.runTimeoutMs
    // An agent run's deadline covers its gate calls, its tools and its commit: the gate call reads it.
    const deadline = sharedDeadline(options) ?? (runTimeoutMs === undefined ? undefined : runDeadline(runTimeoutMs, options.signal ?? request.signal))
    this.g = g
    this.request = request
    this.#settings = settingsOf(g, options, hooks, deadline)
    this.signal = deadline?.signal ?? options.signal ?? request.signal
    this.runId = options.runId ?? newRunId()
    this.started = this.#lastTime = g.now()
    this.#base = request
    // An agent's argument retry starts on the model that made the call (an index past the providers: on the first).
    if (options.startProvider !== undefined && options.startProvider < g.providers.length) this.#providerIdx = options.startProvider
  }

  get metadata(): Readonly<Record<string, unknown>> | undefined {
    return this.#settings.metadata
  }

  get turn(): number | undefined {
    return this.#settings.turn
  }

  get settings(): RunSettings<T> {
    return this.#settings
  }

  get meter(): MeterTotals {
    return this.#meter
  }

  get attempt(): number {
    return this.#attempt
  }

  get providerIdx(): number {
    return this.#providerIdx
  }

  get base(): ModelRequest {
    return this.#base
  }

  get tail(): readonly Message[] {
    return this.#retries?.tail ?? NONE
  }

  get history(): readonly string[] {
    return this.#retries?.history ?? NONE
  }

  get signatures(): readonly string[] {
    return this.#retries?.signatures ?? NONE
  }

  get records(): readonly AttemptRecord[] {
    return (this.#records ??= [])
  }

  get retryAfterMs(): number | undefined {
    return this.#retries?.retryAfterMs
  }

  get transientFailures(): number {
    return this.#retries?.transientFailures ?? 0
  }

  get lastTime(): number {
    return this.#lastTime
  }

  get tags(): EventTags | undefined {
    return this.#settings.tags
  }

  /** The run, on `messages` (`run_start` emitted first). */
  run(messages: readonly Message[]): Promise<GateResult<T>> {
    const g = this.g
    this.#base = baseFor(this, this.#providerIdx, messages)
    if (g.events.has('run_start')) {
      g.events.emit('run_start', {
        runId: this.runId,
        ...this.tags,
        provider: (g.providers[this.#providerIdx] as ResolvedProvider).name,
        model: this.#base.model,
      })
    }
    let settled: Promise<GateResult<T>>
    try {
      const out = this.#next()
      settled = isThenable(out) ? (out as Promise<GateResult<T>>) : Promise.resolve(out)
    } catch (error) {
      // As from an async function: whatever a step throws is the run's rejection, never a throw at the caller.
      settled = Promise.reject(error)
    }
    const deadline = this.#settings.deadline
    // The run's own deadline ends with the run, whichever way it ends.
    if (deadline !== undefined) settled.then(deadline.clear, deadline.clear)
    return settled
  }

  // The loop as promise reactions (an async frame costs ~330 B a run), synchronous till a promise: #next (PreCheck) -> #call -> #taken (PostDecide) -> #act.

  #next(): GateResult<T> | Promise<GateResult<T>> {
    if (this.g.preCheck.length > 0) {
      const pending = preCheck(this)
      if (pending instanceof Promise) return pending.then((stop) => this.#call(stop))
      return this.#call(pending)
    }
    return this.#call(undefined)
  }

  /** The attempt into the gate's chain: its answer is taken out through the stages in the loop's own step (see `#answered`). */
  #call(stop: PreVerdict): GateResult<T> | Promise<GateResult<T>> {
    if (stop !== undefined) throw this.#fail({ kind: stop.kind, reason: stop.reason, phase: 'pre-check' })
    if (this.signal?.aborted === true)
      throw this.#fail({ kind: FailFastKinds.Aborted, reason: 'the run was aborted before the attempt started', phase: 'pre-check', cause: this.signal.reason })
    const attempt = this.#settings.durable?.start(this) ?? startAttempt(this)
    let answer: unknown
    try {
      answer = this.#settings.durable?.chain(attempt, this.#settings.call) ?? this.g.chain(attempt, this.#settings.call)
    } catch (error) {
      return this.#failed(attempt, error)
    }
    if (!isThenable(answer)) return this.#answered(attempt, answer)
    // Adopted, not called: a thenable whose `then` throws fails the attempt like one that rejects.
    return Promise.resolve(answer).then(
      (value) => this.#answered(attempt, value),
      (error: unknown) => this.#failed(attempt, error),
    )
  }

  /** The chain's answer, out through its stages (the meter, the policies, the check): the attempt ends and is taken. */
  #answered(attempt: GateAttempt<T>, answer: unknown): GateResult<T> | Promise<GateResult<T>> {
    const left = attempt.leave(answer)
    if (!isThenable(left)) return this.#taken(endAttempt(attempt, false, undefined))
    return left.then(
      () => this.#taken(endAttempt(attempt, false, undefined)),
      (error: unknown) => this.#failed(attempt, error),
    )
  }

  /** The attempt failed: the stages still open hear it, then it ends and is taken. */
  #failed(attempt: GateAttempt<T>, error: unknown): GateResult<T> | Promise<GateResult<T>> {
    const heard = attempt.failOpen(error)
    if (heard === undefined) return this.#taken(endAttempt(attempt, true, error))
    return heard.then(() => this.#taken(endAttempt(attempt, true, error)))
  }

  /** What an attempt changed, taken, then PostDecide's verdict acted on. */
  #taken(outcome: AttemptTaken<T>): GateResult<T> | Promise<GateResult<T>> {
    this.#took(outcome)
    const verdict = decide(this, outcome)
    return verdict instanceof Promise ? verdict.then((v) => this.#act(outcome, v)) : this.#act(outcome, verdict)
  }

  /** Acts on a verdict: the result, the fail-fast error (thrown: the run's rejection), the fallback, or the next attempt. */
  #act(outcome: AttemptTaken<T>, verdict: Verdict): GateResult<T> | Promise<GateResult<T>> {
    switch (verdict.act) {
      case 'ok':
        this.#record(outcome, acceptedDecision(verdict.kind, verdict.rule))
        return succeed(this, outcome, false)
      case 'fail':
        this.#record(outcome, { decision: 'fail-fast', kind: verdict.kind, rule: verdict.rule, feedback: undefined })
        throw this.#fail({ kind: verdict.kind, reason: verdict.reason, phase: 'post-decide', cause: outcome.error, failure: outcome.failure })
      case 'fallback':
        this.#record(outcome, { decision: 'fallback', kind: verdict.kind, rule: verdict.rule, feedback: undefined })
        return useFallback(this, verdict.scope, verdict.kind, (stop) => this.#fail(stop))
      case 'retry':
        return this.#retry(outcome, verdict)
    }
  }

  /** A retry: its plan applied, `retry` emitted, its wait, then the next attempt. */
  async #retry(outcome: AttemptTaken<T>, verdict: Verdict & { readonly act: 'retry' }): Promise<GateResult<T>> {
    const plan = await planRetry(this, verdict, outcome)
    if (!plan.go) {
      this.#record(outcome, { decision: 'fail-fast', kind: plan.kind, rule: verdict.rule, feedback: undefined })
      const cause = plan.kind === FailFastKinds.Aborted ? this.signal?.reason : outcome.error
      const failure = plan.kind === FailFastKinds.CircuitOpen ? undefined : outcome.failure
      throw this.#fail({ kind: plan.kind, reason: plan.reason, phase: 'post-decide', cause, failure })
    }
    this.#record(outcome, { decision: verdict.decision, kind: verdict.kind, rule: verdict.rule, feedback: plan.feedback })
    const from = (this.g.providers[this.#providerIdx] as ResolvedProvider).name
    this.#providerIdx = plan.providerIdx
    this.#base = plan.base
    ;(this.#retries ??= new RetryState()).tail = plan.tail
    emitRetry(this, { decision: verdict.decision, from, delayMs: plan.delayMs, feedback: plan.feedback })
    this.#attempt++
    if (plan.delayMs > 0) {
      try {
        await (this.#settings.durable?.wait(this.#attempt, plan.delayMs, this.signal) ?? sleep(plan.delayMs, this.signal))
      } catch (error) {
        throw this.#fail({ kind: FailFastKinds.Aborted, reason: 'the run was aborted while waiting to retry', phase: 'post-decide', cause: error })
      }
    }
    return this.#next()
  }

  /** Takes what an attempt changed: its end, its failure counts and validation history (see RetryState), its cost. */
  #took(outcome: AttemptTaken<T>): void {
    this.#lastTime = outcome.endedAt
    if (this.#retries !== undefined || outcome.retryAfterMs !== undefined || outcome.failure !== undefined || isTransientFailure(outcome)) {
      const run = (this.#retries ??= new RetryState())
      run.retryAfterMs = outcome.retryAfterMs
      if (isTransientFailure(outcome)) run.transientFailures++
      if (outcome.failure !== undefined) {
        // Frozen: every scope hands these to the rules, and a rule that edits its scope must change nothing of the run.
        run.history = Object.freeze(run.history.concat(outcome.failure.message))
        run.signatures = Object.freeze(run.signatures.concat(outcome.failure.signature))
      }
    }
    if (outcome.usage !== undefined) this.#meter.add(outcome.usage, outcome.costUsd, outcome.unpriced !== undefined)
  }

  #record(outcome: AttemptOutcome<T>, decided: RecordDecision): void {
    const record = attemptRecord(outcome, this, decided)
    if (this.#records === undefined) this.#records = [record]
    else this.#records.push(record)
  }

  /** The run's fail-fast error (`fail_fast` and `run_end` emitted); a run past its own deadline fails as `run-timeout`. */
  #fail(stop: RunStop): ReliabilityFailFastError {
    if (this.#settings.deadline?.expired !== true) return failFast(this, stop)
    const reason = `the run did not finish within runTimeoutMs (${stop.reason})`
    return failFast(this, { kind: FailFastKinds.RunTimeout, reason, phase: stop.phase, cause: stop.cause })
  }
}

// A run that holds nothing, kept for its hidden class (see keepShape); its meter holding a fraction of a dollar, as a priced run's does.
const never = (): Promise<never> => Promise.reject(new Error('never called'))
const witness = new GateLoop(
  Object.freeze({ now: () => Number.NaN }) as GateInternals<unknown>,
  Object.freeze({ messages: NONE }),
  { runId: '' },
  { call: never },
)
keepShape(witness)
;(witness.meter as RunMeter).add(ZERO_USAGE, Number.MIN_VALUE, false)
