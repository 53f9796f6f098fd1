import { isTransientKind, type ErrorKind } from '../model/error-kind.ts'
import type { ModelResponse } from '../model/response.ts'
import { ZERO_USAGE, type Usage } from '../model/usage.ts'
import { raceAbort } from '../policies/deadline/race-abort.ts'
import { finiteUsage } from '../policies/meter.ts'
import type { AttemptContext } from '../policies/middleware.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { checkResponse } from './check-response.ts'
import { classifyError } from './classify-error.ts'
import { withTail } from './ephemeral-tail.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { responseOf } from './response-shape.ts'
import type { RunState } from './run-state.ts'

// Shared by every attempt that applied no repair (read-only, only its length is looked at).
const NO_REPAIRS: readonly string[] = Object.freeze([])

/**
 * One attempt: the chain (policies, the user's links, the provider call), then the meter (usage,
 * price, `cost_tick`) and the check (extract, repair, validate), with `validation_failed` emitted
 * before any rule decides. Never throws: every failure is the outcome's `error` and `kind`.
 */
export async function runAttempt<T>(s: RunState<T>): Promise<AttemptOutcome<T>> {
  const g = s.g
  const events = g.events
  const entry = g.providers[s.providerIdx] as ResolvedProvider
  const attempt = s.attempt + 1
  const model = s.base.model
  if (events.has('attempt_start')) events.emit('attempt_start', { runId: s.runId, attempt, provider: entry.name, providerIdx: s.providerIdx, model })
  const ctx: AttemptContext = {
    runId: s.runId,
    attempt,
    request: withTail(s.base, s.tail),
    baseRequest: s.base,
    provider: entry.name,
    providerIdx: s.providerIdx,
    model,
    metadata: s.metadata,
  }
  const t0 = attempt === 1 ? s.started : g.now()
  let response: ModelResponse | undefined
  let error: unknown
  let kind: ErrorKind = 'ok'
  let retryAfterMs: number | undefined
  try {
    let pending = g.chain(ctx, s.call)
    // The chain's own links may ignore the signal; the run never waits past it.
    if (s.signal !== undefined) pending = raceAbort(pending, s.signal)
    response = responseOf(await pending, entry.name)
  } catch (e) {
    error = e
    const classified = classifyError(e)
    kind = s.signal?.aborted === true ? 'aborted' : classified.kind
    retryAfterMs = classified.retryAfterMs
    if (isTransientKind(kind)) s.transientFailures++
  }
  const t1 = g.now()
  s.lastTime = t1
  s.retryAfterMs = retryAfterMs

  let failure: ValidationFailure | undefined
  let value: T | string | undefined
  let repairs = NO_REPAIRS
  let usage: Usage = ZERO_USAGE
  let costUsd = 0
  if (response !== undefined) {
    usage = finiteUsage(response.usage)
    costUsd = s.meter.add(usage, model, entry.name)
    if (events.has('cost_tick')) {
      events.emit('cost_tick', { runId: s.runId, attempt, provider: entry.name, model, attemptCostUsd: costUsd, cumulativeCostUsd: s.meter.costUsd, usage })
    }
    let check = checkResponse(response, s.schema, g.repair)
    if (check instanceof Promise) check = await check
    ;({ kind, value, failure, repairs } = check)
    if (repairs.length > 0 && events.has('repaired')) events.emit('repaired', { runId: s.runId, attempt, provider: entry.name, repairs })
    if (failure !== undefined) validationFailed(s, failure, attempt)
  }
  const latencyMs = t1 - t0
  if (events.has('attempt_end')) events.emit('attempt_end', { runId: s.runId, attempt, provider: entry.name, errorKind: kind, latencyMs, usage })
  return { response, error, kind, retryAfterMs, failure, value, repairs, latencyMs, usage, costUsd }
}

/** Records a validation failure in the run's history and reports it, before any decision. */
function validationFailed<T>(s: RunState<T>, failure: ValidationFailure, attempt: number): void {
  s.history = s.history.concat(failure.message)
  const events = s.g.events
  if (!events.has('validation_failed')) return
  events.emit('validation_failed', {
    runId: s.runId,
    message: failure.message,
    stage: failure.stage,
    path: failure.path,
    rawOutput: failure.rawOutput,
    issues: failure.issues,
    attempt,
    cumulativeRetries: s.history.length,
  })
}
