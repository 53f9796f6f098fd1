import { isTransientKind, type ErrorKind } from '../model/error-kind.ts'
import type { ModelResponse } from '../model/response.ts'
import { ZERO_USAGE, type Usage } from '../model/usage.ts'
import { emitValidationFailed } from '../events/validation-failed-event.ts'
import { raceAbort } from '../policies/deadline/race-abort.ts'
import { finiteUsage, isSoundUsage } from '../policies/usage-estimate.ts'
import type { AttemptContext } from '../policies/middleware.ts'
import { NOT_PARSED } from '../validation/json/parse-json-fast.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'
import { checkResponse, type ResponseCheck } from './check-response.ts'
import { classifyError } from './classify-error.ts'
import { withTail } from './ephemeral-tail.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { checkedResponse, responseOf } from './response-shape.ts'
import { isRefusal } from './refusal.ts'
import type { RunState } from './run-state.ts'
import { warnOnce } from './warn-once.ts'
import { acceptWhole, NotAccepted, type TestedSchema } from './whole-answer.ts'

// Shared by every attempt that applied no repair (read-only, only its length is looked at).
const NO_REPAIRS: readonly string[] = Object.freeze([])

/**
 * Starts one attempt: the chain (policies, the user's links, the provider call), or the provider
 * call alone when the gate has no links. Never throws synchronously; the promise rejects with the
 * attempt's failure. The run's signal always wins, even over links that ignore it.
 */
export function startAttempt<T>(s: RunState<T>): Promise<unknown> {
  const g = s.g
  const entry = g.providers[s.providerIdx] as ResolvedProvider
  const attempt = s.attempt + 1
  const request = withTail(s.base, s.tail)
  if (g.events.has('attempt_start'))
    g.events.emit('attempt_start', { runId: s.runId, ...s.tags, attempt, provider: entry.name, providerIdx: s.providerIdx, model: s.base.model, request })
  s.attemptStarted = attempt === 1 ? s.started : g.now()
  let pending: Promise<unknown>
  try {
    if (s.direct) {
      pending = Promise.resolve(entry.provider.complete(request))
    } else {
      const ctx: AttemptContext = {
        runId: s.runId,
        attempt,
        request,
        baseRequest: s.base,
        provider: entry.name,
        providerIdx: s.providerIdx,
        model: s.base.model,
        metadata: s.metadata,
        turn: s.turn,
      }
      pending = g.chain(ctx, s.call)
    }
  } catch (error) {
    // A provider or link that throws synchronously fails its attempt like one that rejects.
    pending = Promise.reject(error)
  }
  return s.signal === undefined ? pending : raceAbort(pending, s.signal)
}

/**
 * Settles one attempt from what its chain gave: the shape check at the boundary, then the meter
 * (usage, price, `cost_tick`) and the check (extract, repair, validate), with `validation_failed`
 * emitted before any rule decides. Never throws: every failure is the outcome's `error` and `kind`.
 * Synchronous unless the schema answers with a promise. A run handed over by `quickRun` passes when
 * the attempt ended and, when it already tried the fast check (`acceptWhole`), what that gave.
 */
export function settleAttempt<T>(
  s: RunState<T>,
  result: unknown,
  error: unknown,
  failed: boolean,
  endedAt?: number,
  tried?: NotAccepted,
): AttemptOutcome<T> | Promise<AttemptOutcome<T>> {
  const g = s.g
  const provider = (g.providers[s.providerIdx] as ResolvedProvider).name
  let response: ModelResponse | undefined
  if (!failed) {
    try {
      response = s.direct ? checkedResponse(result, provider) : responseOf(result, provider)
    } catch (e) {
      error = e
      failed = true
    }
  }
  let kind: ErrorKind = 'ok'
  let retryAfterMs: number | undefined
  if (failed) {
    const classified = classifyError(error)
    kind = s.signal?.aborted === true ? 'aborted' : classified.kind
    retryAfterMs = classified.retryAfterMs
    if (isTransientKind(kind)) s.transientFailures++
  }
  const t1 = endedAt ?? g.now()
  s.lastTime = t1
  s.retryAfterMs = retryAfterMs
  const latencyMs = t1 - s.attemptStarted
  if (response === undefined)
    return ended(s, {
      response,
      error,
      kind,
      retryAfterMs,
      failure: undefined,
      value: undefined,
      repairs: NO_REPAIRS,
      latencyMs,
      usage: ZERO_USAGE,
      costUsd: 0,
      unpriced: false,
    })

  const model = s.base.model
  // Missing or broken counts are estimated from what was sent and answered, never taken as 0.
  const reported = response.usage
  const usage = isSoundUsage(reported) ? reported : finiteUsage(reported, withTail(s.base, s.tail), response)
  const costUsd = s.meter.add(usage, model, provider)
  const unpriced = s.meter.lastUnpriced !== undefined
  if (unpriced) costUnknown(s, provider, model, s.meter.lastUnpriced as string, usage)
  if (g.events.has('cost_tick')) {
    g.events.emit('cost_tick', {
      runId: s.runId,
      ...s.tags,
      attempt: s.attempt + 1,
      provider,
      model,
      attemptCostUsd: costUsd,
      cumulativeCostUsd: s.meter.costUsd,
      usage,
    })
  }
  if (isRefusal(response)) return answered(s, response, 'refusal', undefined, error, retryAfterMs, latencyMs, usage, costUsd, unpriced)
  // The common case, checked without building anything: a complete final answer that is exactly a
  // JSON value the compiled schema accepts as it is.
  const schema = s.schema
  let parsed: unknown = NOT_PARSED
  if (schema?.test !== undefined) {
    const whole = tried ?? acceptWhole(schema as TestedSchema<T>, response)
    if (!(whole instanceof NotAccepted)) return answered(s, response, kind, whole as T, error, retryAfterMs, latencyMs, usage, costUsd, unpriced)
    parsed = whole.parsed
  }
  // A whole answer that parsed but failed the schema is not parsed again to say why.
  const check = checkResponse(response, schema, g.repair, parsed === NOT_PARSED ? undefined : { value: parsed })
  if (!(check instanceof Promise)) return checked(s, check, response, retryAfterMs, latencyMs, usage, costUsd, unpriced)
  // An async schema is user code: it must not hold the run past its signal.
  return raceAbort(check, s.signal).then(
    (c) => checked(s, c, response, retryAfterMs, latencyMs, usage, costUsd, unpriced),
    (e: unknown) => {
      if (s.signal?.aborted !== true) throw e
      return answered(s, response, 'aborted', undefined, e, retryAfterMs, latencyMs, usage, costUsd, unpriced)
    },
  )
}

function checked<T>(
  s: RunState<T>,
  c: ResponseCheck<T>,
  response: ModelResponse,
  retryAfterMs: number | undefined,
  latencyMs: number,
  usage: Usage,
  costUsd: number,
  unpriced: boolean,
): AttemptOutcome<T> {
  const events = s.g.events
  const attempt = s.attempt + 1
  if (c.repairs.length > 0 && events.has('repaired')) {
    events.emit('repaired', { runId: s.runId, ...s.tags, attempt, provider: (s.g.providers[s.providerIdx] as ResolvedProvider).name, repairs: c.repairs })
  }
  if (c.failure !== undefined) validationFailed(s, c.failure, attempt)
  return ended(s, {
    response,
    error: undefined,
    kind: c.kind,
    retryAfterMs,
    failure: c.failure,
    value: c.value,
    repairs: c.repairs,
    latencyMs,
    usage,
    costUsd,
    unpriced,
  })
}

/** Reports an attempt that could not be priced: `cost_unknown`, or a process warning (once per reason) when nobody listens. */
function costUnknown<T>(s: RunState<T>, provider: string, model: string | undefined, reason: string, usage: Usage): void {
  const events = s.g.events
  if (events.has('cost_unknown')) {
    events.emit('cost_unknown', { runId: s.runId, ...s.tags, attempt: s.attempt + 1, provider, model, source: 'meter', reason, usage })
    return
  }
  warnOnce(
    s.g.warned,
    `${provider}\u0000${reason}`,
    `reliability-gate: the cost of an attempt of provider "${provider}" could not be priced: ${reason}. It counts as $0; listen to 'cost_unknown' or set onUnpriced: 'fail' on the budget.`,
  )
}

/** The outcome of an answered attempt that is not a validation failure (positional: no object per call on the hot path). */
function answered<T>(
  s: RunState<T>,
  response: ModelResponse,
  kind: ErrorKind,
  value: T | undefined,
  error: unknown,
  retryAfterMs: number | undefined,
  latencyMs: number,
  usage: Usage,
  costUsd: number,
  unpriced: boolean,
): AttemptOutcome<T> {
  return ended(s, { response, error, kind, retryAfterMs, failure: undefined, value, repairs: NO_REPAIRS, latencyMs, usage, costUsd, unpriced })
}

function ended<T>(s: RunState<T>, outcome: AttemptOutcome<T>): AttemptOutcome<T> {
  const events = s.g.events
  if (events.has('attempt_end')) {
    const provider = (s.g.providers[s.providerIdx] as ResolvedProvider).name
    const response = outcome.response
    events.emit('attempt_end', {
      runId: s.runId,
      ...s.tags,
      attempt: s.attempt + 1,
      provider,
      model: s.base.model,
      errorKind: outcome.kind,
      latencyMs: outcome.latencyMs,
      usage: outcome.usage,
      finishReason: response?.stopReason,
      response,
    })
  }
  return outcome
}

/** Records a validation failure in the run's history and reports it, before any decision. */
function validationFailed<T>(s: RunState<T>, failure: ValidationFailure, attempt: number): void {
  s.history = s.history.concat(failure.message)
  s.signatures = s.signatures.concat(failure.signature)
  const events = s.g.events
  if (!events.has('validation_failed')) return
  const from = { runId: s.runId, tags: s.tags, provider: (s.g.providers[s.providerIdx] as ResolvedProvider).name, model: s.base.model }
  emitValidationFailed(events, from, failure, attempt, s.failuresBefore + s.history.length)
}
