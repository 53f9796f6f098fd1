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

/** An attempt's outcome as the loop takes it: with when it ended, and whether the meter read an answer. */
export interface AttemptTaken<T> extends AttemptOutcome<T> {
  readonly endedAt: number
  /** The meter read an answer (even if a later link failed the attempt): it was paid for all the same. */
  readonly metered: boolean
}

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
 * (nothing it started may call a provider any more), its immutable outcome built and `attempt_end`
 * emitted. Every failure is the outcome's `error` and `kind`; the run's abort wins over an answer.
 */
export function endAttempt<T>(attempt: GateAttempt<T>, failed: boolean, error: unknown): AttemptTaken<T> {
  attempt.close()
  const run = attempt.run
  const g = run.g
  const aborted = run.signal?.aborted === true
  if (!failed && (aborted || attempt.kind === undefined)) {
    // A link that answered after the run was aborted, or a chain that skipped the check.
    return endAttempt(attempt, true, aborted ? run.signal?.reason : new TypeError('the attempt chain answered without its check'))
  }
  const endedAt = g.now()
  const classified = failed ? classifyError(error) : undefined
  const outcome: AttemptTaken<T> = {
    response: failed ? undefined : attempt.response,
    error: failed ? error : undefined,
    kind: classified === undefined ? (attempt.kind as NonNullable<typeof attempt.kind>) : aborted ? 'aborted' : classified.kind,
    retryAfterMs: classified?.retryAfterMs,
    failure: failed ? undefined : attempt.failure,
    value: failed ? undefined : attempt.value,
    repairs: failed ? NO_REPAIRS : attempt.repairs,
    latencyMs: endedAt - attempt.startedAt,
    usage: attempt.usage ?? ZERO_USAGE,
    costUsd: attempt.costUsd,
    unpriced: attempt.unpriced !== undefined,
    endedAt,
    metered: attempt.usage !== undefined,
  }
  const events = g.events
  if (events.has('attempt_end')) {
    events.emit('attempt_end', {
      runId: run.runId,
      ...run.tags,
      attempt: attempt.attempt,
      provider: attempt.provider,
      model: run.base.model,
      errorKind: outcome.kind,
      latencyMs: outcome.latencyMs,
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
