import { isTransientKind } from '../../model/error-kind.ts'
import { raceAbort } from '../../model/race-abort.ts'
import { ATTEMPT_SLOT, type AttemptSlot, attemptRequest, closeSlot, onClose, stopAttempt } from '../../policies/attempt-slot.ts'
import { abortReason } from '../../model/abort-reason.ts'
import type { AttemptContext } from '../../policies/middleware.ts'
import type { AttemptOutcome } from '../attempt-outcome.ts'
import { classifyError } from '../classify-error.ts'
import { withTail } from '../ephemeral-tail.ts'
import { frozenAttemptRequest } from '../frozen-attempt-request.ts'
import type { ResponseCheck } from '../check-response.ts'
import type { ResolvedProvider } from '../resolved-provider.ts'
import { type AttemptTaken, GateAttempt } from './gate-attempt.ts'
import type { GateSlot } from './attempt-slot.ts'
import type { RunView } from './run-view.ts'

/**
 * One attempt, whole: `attempt_start`, the chain (deadline, check, the policies, the meter, the
 * user's links, the provider), then `attempt_end`. Never rejects: every failure is the outcome's
 * `error` and `kind`. The run's signal always wins, even over links that ignore it; once the attempt
 * settled, nothing it started may call a provider.
 */
export function runAttempt<T, R>(run: RunView<T> & AttemptThen<T, R>): Promise<R> {
  const g = run.g
  const entry = g.providers[run.providerIdx] as ResolvedProvider
  const attempt = run.attempt + 1
  const events = g.events
  // User code gets the library's frozen copy: an edit in place reaches neither the caller nor the provider.
  const request = g.userLinks || events.has('attempt_start') ? frozenAttemptRequest(run) : withTail(run.base, run.tail)
  if (events.has('attempt_start'))
    events.emit('attempt_start', { runId: run.runId, ...run.tags, attempt, provider: entry.name, providerIdx: run.providerIdx, model: run.base.model, request })
  // Offered to the chain's outermost run of stages, which then settles the attempt itself.
  const slot = new GateAttempt<T>(run, g.settles ? settleAttempt : undefined, attempt === 1 ? run.started : g.now())
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
  const signal = run.signal
  let work: Promise<unknown>
  try {
    work = g.chain(ctx, run.call)
  } catch (error) {
    work = Promise.reject(error)
  }
  if (g.settles && slot.settle === undefined) {
    // Taken: the chain's promise settles with what the loop made of the attempt (see `SettleAttempt`).
    if (signal !== undefined) followRunSignal(slot, signal)
    return work as Promise<R>
  }
  slot.settle = undefined
  // The run's abort settles the attempt at once, and its chain hears it (the budget lets go, the breaker hears an abort).
  if (signal !== undefined) work = raceAbort(work, signal, () => stopAttempt(slot, abortReason(signal)))
  return settled(slot as GateAttempt<unknown>, work)
}

/** The attempt's settle (see `SettleAttempt`): its end, handed to the loop. */
function settleAttempt(slot: AttemptSlot, failed: boolean, error: unknown): unknown {
  const started = slot as GateAttempt<unknown>
  // The slot's run is the loop that takes its attempts (see `runAttempt`).
  return (started.run as RunView<unknown> & AttemptThen<unknown, unknown>).taken(ended(started, failed, error))
}

/** The run's abort stops the chain that settles the attempt: its outermost run of stages settles it then. */
function followRunSignal(slot: AttemptSlot, signal: AbortSignal): void {
  if (signal.aborted) return stopAttempt(slot, abortReason(signal))
  const stop = (): void => stopAttempt(slot, abortReason(signal))
  signal.addEventListener('abort', stop, { once: true })
  onClose(slot, () => signal.removeEventListener('abort', stop))
}

/** Takes an attempt's outcome: the run loop (the run itself), which goes on from it (no reaction of its own in between). */
export interface AttemptThen<T, R> {
  taken(outcome: AttemptTaken<T>): R | Promise<R>
}

/** The attempt's end once its chain's promise settled (a chain whose outermost link is not a run of stages). */
function settled<R>(slot: GateAttempt<unknown>, work: Promise<unknown>): Promise<R> {
  return work.then(
    () => settleAttempt(slot, false, undefined),
    (error: unknown) => settleAttempt(slot, true, error),
  ) as Promise<R>
}

/** The attempt's end: its slot closed, its outcome built and `attempt_end` emitted. */
function ended<T>(slot: GateAttempt<T>, thrown: boolean, thrownError: unknown): AttemptTaken<T> {
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
  slot.endedAt = endedAt
  slot.latencyMs = latencyMs
  if (failed) {
    const classified = classifyError(error)
    slot.checked = undefined
    slot.value = undefined
    slot.error = error
    slot.kind = run.signal?.aborted === true ? 'aborted' : classified.kind
    slot.retryAfterMs = classified.retryAfterMs
  } else slot.kind = (slot.checked as ResponseCheck<T>).kind
  const outcome: AttemptTaken<T> = slot
  const events = g.events
  if (events.has('attempt_end')) {
    events.emit('attempt_end', {
      runId: run.runId,
      ...run.tags,
      attempt: run.attempt + 1,
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
