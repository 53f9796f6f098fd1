import { isTransientKind } from '../../model/error-kind.ts'
import { ZERO_USAGE } from '../../model/usage.ts'
import type { AttemptOutcome } from '../attempt-outcome.ts'
import { classifyError } from '../classify-error.ts'
import { withTail } from '../ephemeral-tail.ts'
import { frozenAttemptRequest } from '../frozen-attempt-request.ts'
import type { ResolvedProvider } from '../resolved-provider.ts'
import { GateAttempt } from './gate-attempt.ts'
import type { RunView } from './run-view.ts'

const NO_REPAIRS: readonly string[] = Object.freeze([])

/** An attempt once it ended: closed, its outcome settled (`kind` among it). */
export type AttemptTaken<T> = GateAttempt<T> & AttemptOutcome<T>

/**
 * The run's next attempt, started: `attempt_start` emitted, its request made (user code, the
 * user's links and `attempt_start` listeners, gets the library's frozen copy: an edit in place
 * reaches neither the caller nor the provider). The loop then takes it through the gate's chain.
 */
export function startAttempt<T>(run: RunView<T>): GateAttempt<T> {
  const g = run.g
  const attempt = run.attempt + 1
  const events = g.events
  const request = g.userLinks || events.has('attempt_start') ? frozenAttemptRequest(run) : withTail(run.base, run.tail)
  if (events.has('attempt_start')) {
    const provider = (g.providers[run.providerIdx] as ResolvedProvider).name
    events.emit('attempt_start', { runId: run.runId, ...run.tags, attempt, provider, providerIdx: run.providerIdx, model: run.base.model, request })
  }
  return new GateAttempt(run, attempt, request, attempt === 1 ? run.started : g.now())
}

/**
 * The attempt's end, once its chain answered (`failed`: rejected with `error`): the attempt closed
 * (nothing it started may call a provider or write its verdict any more), its outcome written on it
 * (the attempt is its own outcome: no second object) and `attempt_end` emitted. Every failure is the
 * outcome's `error` and `kind`; the run's abort wins over an answer.
 */
export function endAttempt<T>(attempt: GateAttempt<T>, failed: boolean, error: unknown): AttemptTaken<T> {
  attempt.close()
  const run = attempt.run
  const aborted = run.signal?.aborted === true
  if (!failed && (aborted || attempt.kind === undefined)) {
    // A link that answered after the run was aborted, or a chain that skipped the check.
    return endAttempt(attempt, true, aborted ? run.signal?.reason : new TypeError('the attempt chain answered without its check'))
  }
  attempt.endedAt = run.g.now()
  if (failed) {
    const classified = classifyError(error)
    attempt.error = error
    attempt.kind = aborted ? 'aborted' : classified.kind
    attempt.retryAfterMs = classified.retryAfterMs
    // What the meter and the check wrote of an answer that failed later is not the outcome's.
    attempt.response = undefined
    attempt.value = undefined
    attempt.failure = undefined
    attempt.repairs = NO_REPAIRS
  }
  const outcome = attempt as AttemptTaken<T>
  const events = run.g.events
  if (events.has('attempt_end')) {
    events.emit('attempt_end', {
      runId: run.runId,
      ...run.tags,
      attempt: attempt.attempt,
      provider: attempt.provider,
      model: run.base.model,
      errorKind: outcome.kind,
      latencyMs: outcome.latencyMs,
      usage: outcome.usage ?? ZERO_USAGE,
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
