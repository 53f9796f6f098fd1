import { isTransientKind, type ErrorKind } from '../../model/error-kind.ts'
import { raceAbort } from '../../model/race-abort.ts'
import { ZERO_USAGE } from '../../model/usage.ts'
import { ATTEMPT_SLOT, attemptRequest, closeSlot, stopAttempt } from '../../policies/attempt-slot.ts'
import { abortReason } from '../../model/abort-reason.ts'
import type { Metered } from '../../policies/meter.ts'
import type { AttemptContext } from '../../policies/middleware.ts'
import type { AttemptOutcome } from '../attempt-outcome.ts'
import { classifyError } from '../classify-error.ts'
import { withTail } from '../ephemeral-tail.ts'
import { frozenAttemptRequest } from '../frozen-attempt-request.ts'
import type { ResolvedProvider } from '../resolved-provider.ts'
import type { GateSlot } from './attempt-slot.ts'
import type { RunView } from './run-view.ts'

const NO_REPAIRS: readonly string[] = Object.freeze([])

/** An attempt's outcome, with when it ended and the meter's reading of its answer. */
export interface AttemptTaken<T> extends AttemptOutcome<T> {
  readonly endedAt: number
  /** The meter's reading of its answer, when it got one (even if a later link failed the attempt). */
  readonly metered: Metered | undefined
}

/** The slot of an attempt under way, with what its end needs. */
interface Started<T> extends GateSlot<T> {
  readonly attempt: number
  readonly startedAt: number
}

/**
 * One attempt, whole: `attempt_start`, the chain (deadline, check, the policies, the meter, the
 * user's links, the provider), then `attempt_end`. Never rejects: every failure is the outcome's
 * `error` and `kind`. The run's signal always wins, even over links that ignore it; once the attempt
 * settled, nothing it started may call a provider.
 */
export function runAttempt<T, R>(run: RunView<T>, then: AttemptThen<T, R>): Promise<R> {
  const g = run.g
  const entry = g.providers[run.providerIdx] as ResolvedProvider
  const attempt = run.attempt + 1
  const events = g.events
  // User code gets the library's frozen copy: an edit in place reaches neither the caller nor the provider.
  const request = g.userLinks || events.has('attempt_start') ? frozenAttemptRequest(run) : withTail(run.base, run.tail)
  if (events.has('attempt_start'))
    events.emit('attempt_start', { runId: run.runId, ...run.tags, attempt, provider: entry.name, providerIdx: run.providerIdx, model: run.base.model, request })
  const slot: Started<T> = {
    run,
    metered: undefined,
    checked: undefined,
    costBefore: run.meter.costUsd,
    closed: false,
    raced: run.signal,
    closers: undefined,
    request: undefined,
    controller: undefined,
    stopped: false,
    stopReason: undefined,
    runner: undefined,
    attempt,
    startedAt: attempt === 1 ? run.started : g.now(),
  }
  const ctx: AttemptContext & { [ATTEMPT_SLOT]: GateSlot<T> } = {
    runId: run.runId,
    attempt,
    request: g.stops ? attemptRequest(request, slot) : request,
    baseRequest: run.base,
    provider: entry.name,
    providerIdx: run.providerIdx,
    model: run.base.model,
    metadata: run.metadata,
    turn: run.turn,
    [ATTEMPT_SLOT]: slot,
  }
  let work: Promise<unknown>
  try {
    const chain = g.chain(ctx, run.call)
    const signal = run.signal
    // The run's abort settles the attempt at once, and its chain hears it (the budget lets go, the breaker hears an abort).
    work = signal === undefined ? chain : raceAbort(chain, signal, () => stopAttempt(slot, abortReason(signal)))
  } catch (error) {
    work = Promise.reject(error)
  }
  return settled(slot, work, then)
}

/** Takes an attempt's outcome: the run loop, which goes on from it (no reaction of its own in between). */
export interface AttemptThen<T, R> {
  taken(outcome: AttemptTaken<T>): R | Promise<R>
}

function settled<T, R>(slot: Started<T>, work: Promise<unknown>, then: AttemptThen<T, R>): Promise<R> {
  return work.then(
    () => then.taken(ended(slot, false, undefined)),
    (error: unknown) => then.taken(ended(slot, true, error)),
  )
}

/** The attempt's end: its slot closed, its outcome built and `attempt_end` emitted. */
function ended<T>(slot: Started<T>, thrown: boolean, thrownError: unknown): AttemptTaken<T> {
  closeSlot(slot)
  const run = slot.run
  const g = run.g
  let failed = thrown
  let error = thrownError
  if (!failed && (run.signal?.aborted === true || slot.checked === undefined)) {
    // A link that answered after the run was aborted, or a chain that skipped the check.
    failed = true
    error = run.signal?.aborted === true ? run.signal.reason : new TypeError('the attempt chain answered without its check')
  }
  const endedAt = g.now()
  const latencyMs = endedAt - slot.startedAt
  const metered = slot.metered
  let outcome: AttemptTaken<T>
  if (failed) {
    const classified = classifyError(error)
    const kind: ErrorKind = run.signal?.aborted === true ? 'aborted' : classified.kind
    outcome = {
      response: undefined,
      error,
      kind,
      retryAfterMs: classified.retryAfterMs,
      failure: undefined,
      value: undefined,
      repairs: NO_REPAIRS,
      latencyMs,
      // An answer that was metered before a later link failed was paid for all the same.
      usage: metered?.usage ?? ZERO_USAGE,
      costUsd: metered?.costUsd ?? 0,
      unpriced: metered?.unpriced !== undefined,
      endedAt,
      metered,
    }
  } else {
    const check = slot.checked as NonNullable<GateSlot<T>['checked']>
    const m = metered as NonNullable<typeof metered>
    outcome = {
      response: m.response,
      error: undefined,
      kind: check.kind,
      retryAfterMs: undefined,
      failure: check.failure,
      value: check.value,
      repairs: check.repairs,
      latencyMs,
      usage: m.usage,
      costUsd: m.costUsd,
      unpriced: m.unpriced !== undefined,
      endedAt,
      metered,
    }
  }
  const events = g.events
  if (events.has('attempt_end')) {
    events.emit('attempt_end', {
      runId: run.runId,
      ...run.tags,
      attempt: slot.attempt,
      provider: (g.providers[run.providerIdx] as ResolvedProvider).name,
      model: run.base.model,
      errorKind: outcome.kind,
      latencyMs,
      usage: outcome.usage,
      finishReason: outcome.response?.stopReason,
      response: outcome.response,
    })
  }
  return outcome
}

/** Whether an outcome's failure counts toward `scope.transientFailures`. */
export function isTransientFailure(outcome: AttemptOutcome<unknown>): boolean {
  return outcome.response === undefined && isTransientKind(outcome.kind)
}
