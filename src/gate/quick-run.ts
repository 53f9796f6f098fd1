import { newRunId } from '../events/run-id.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import { isSoundUsage } from '../policies/usage-estimate.ts'
import { acceptedRecord } from './attempt-outcome.ts'
import { baseRequest } from './base-request.ts'
import type { GateInternals, GateRunOptions } from './gate-internals.ts'
import type { GateResult } from './gate-result.ts'
import { GateRun } from './gate-run.ts'
import { isRefusal } from './refusal.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { responseShapeProblem } from './response-shape.ts'
import { acceptWhole, NotAccepted, type TestedSchema } from './whole-answer.ts'

/**
 * Whether a gate's runs may take {@link quickRun}: nothing in its configuration acts on an answer
 * accepted at the first attempt (no PreCheck rule, no PostDecide rule that judges accepted answers,
 * no link, no price to compute or to miss) and its schema has a compiled test.
 */
export function quickRunnable(g: GateInternals<unknown>): boolean {
  return g.preCheck.length === 0 && g.postDecideOnOk.length === 0 && !g.linked && g.priceUsage === undefined && !g.needsPrice && g.schema?.test !== undefined
}

/** Whether this run may take {@link quickRun} on a gate that is {@link quickRunnable}. */
export function quickRunFits(g: GateInternals<unknown>, request: ModelRequest, options: GateRunOptions): boolean {
  return !g.events.firstAnswerWatched && options.signal === undefined && options.validateOutput !== false && request.signal === undefined
}

/**
 * `gate.run` for the common case (`then`: a continuation run in the same reaction, see `RunThen`), an answer the first provider gets right at the first attempt,
 * without the run state a retry needs: the run id, one clock read at each end, the provider call, the
 * checks of `settleAttempt`'s fast path, the log entry and the result, which are those a `GateRun`
 * gives. Anything else (a provider failure, a malformed response, usage to estimate, tool calls, a
 * refusal, a truncated answer, an answer that needs extraction or repair or fails the schema, a
 * listener of the run's events attached meanwhile) is handed over to a `GateRun` where it stands:
 * same run id, same start, same attempt, the parsed value kept, nothing emitted twice.
 */
export function quickRun<T, R = GateResult<T>>(
  g: GateInternals<T>,
  request: ModelRequest,
  options: GateRunOptions,
  then?: (result: GateResult<T>) => R | Promise<R>,
): Promise<R> {
  const runId = options.runId ?? newRunId()
  const started = g.now()
  const base = baseRequest(g.providers[0] as ResolvedProvider, request, g.schema, undefined)
  let pending: Promise<unknown>
  try {
    // The provider is read again from `g` after the call: one variable fewer kept for the reaction.
    pending = Promise.resolve((g.providers[0] as ResolvedProvider).provider.complete(base))
  } catch (error) {
    // A provider that throws synchronously fails its attempt like one that rejects.
    pending = Promise.reject(error)
  }
  return pending.then(
    (result: unknown): R | Promise<R> => {
      const endedAt = g.now()
      // What the fast check gave, when it ran: the full run does not run it again.
      let tried: NotAccepted | undefined
      if (!g.events.firstAnswerWatched && responseShapeProblem(result) === undefined) {
        const response = result as ModelResponse
        if (isSoundUsage(response.usage) && !isRefusal(response)) {
          const whole = acceptWhole(g.schema as TestedSchema<T>, response)
          if (!(whole instanceof NotAccepted))
            return andThen(accepted(g.providers[0] as ResolvedProvider, base, response, whole as T, runId, endedAt - started), then)
          tried = whole
        }
      }
      return andThen(new GateRun(g, request, options, undefined, { runId, started, base }).resume(result, undefined, false, endedAt, tried), then)
    },
    (error: unknown): R | Promise<R> =>
      andThen(new GateRun(g, request, options, undefined, { runId, started, base }).resume(undefined, error, true, undefined, undefined), then),
  )
}

/** The run's result, or what the caller's continuation makes of it. */
function andThen<T, R>(result: GateResult<T> | Promise<GateResult<T>>, then: ((result: GateResult<T>) => R | Promise<R>) | undefined): R | Promise<R> {
  if (then === undefined) return result as R | Promise<R>
  return result instanceof Promise ? result.then(then) : then(result)
}

function accepted<T>(entry: ResolvedProvider, base: ModelRequest, response: ModelResponse, value: T, runId: string, latencyMs: number): GateResult<T> {
  const record = acceptedRecord(entry.name, base.model, response.content, response.usage, latencyMs)
  return {
    runId,
    response,
    value,
    attempts: [record],
    lastAttempt: record,
    usage: response.usage,
    costUsd: 0,
    provider: entry.name,
    fromFallback: false,
    warnings: undefined,
  }
}
