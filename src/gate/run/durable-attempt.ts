import { DurableRunError, isDurableRunError } from '../../durable/durable-run-error.ts'
import { MAX_JOURNALED_MESSAGE, quoted } from '../../durable/journal-codec.ts'
import { shownValue } from '../../model/describe-value.ts'
import { ERROR_KINDS, type ErrorKind } from '../../model/error-kind.ts'
import { messageOf } from '../../model/message-of.ts'
import { isProviderError, ProviderError } from '../../model/provider-error.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { Usage } from '../../model/usage.ts'
import type { Chain } from '../../policies/chain.ts'
import type { ResponseCall } from '../../policies/chain-attempt.ts'
import { isSoundUsage } from '../../policies/usage-estimate.ts'
import { classifyError } from '../classify-error.ts'
import { checkedResponse } from '../response-shape.ts'
import { GateAttempt } from './gate-attempt.ts'
import { journaledResponse, responseFromJournal } from './journaled-response.ts'
import { longestWait } from '../../model/retry-after.ts'

/**
 * What the step of one attempt journals, as plain data: all the loop and the check read of an
 * attempt that ran, so a replay takes it as if it ran. `provider` names who answered and `request`
 * is the digest of what it was sent (a replay on another provider, or for another request,
 * diverged); the meter's reading (`usage`, `costUsd`, `unpriced`) is there whenever
 * it read an answer, even when a later link failed the attempt (it was paid all the same); then
 * either the `response` (the shape-checked answer, as the check reads it; its tool arguments as JSON text, see
 * `journaledResponse`) or the `failure`.
 */
export interface JournaledAttempt {
  readonly v: 1
  readonly provider: string
  /** The digest of the question the attempt asked (`requestDigest`), or of its run's input (an agent run); absent in entries journaled before it was (not compared then). */
  readonly request?: string | undefined
  readonly usage?: Usage | undefined
  readonly costUsd?: number | undefined
  readonly unpriced?: string | undefined
  readonly response?: ModelResponse | undefined
  readonly failure?: JournaledAttemptFailure | undefined
}

/** A failed attempt as data: what the gate's rules read of it (its kind, status, retry-after), rebuilt as a `ProviderError`. */
export interface JournaledAttemptFailure {
  readonly kind: ErrorKind
  readonly message: string
  readonly status?: number | undefined
  readonly retryAfterMs?: number | undefined
  readonly code?: string | undefined
}

/**
 * Runs the part of attempt `outer` below the check (the deadline, the policies, the meter, the
 * user's links, the provider call `call`) through `chain` on an attempt of its own, which the step
 * owns and closes; answers what it came to as a {@link JournaledAttempt}, never a rejection (a
 * failure is data, journaled like an answer). An attempt the run's signal stopped (the caller
 * aborted, `runTimeoutMs` passed) has no outcome of its own: the step never settles, so nothing is
 * journaled and a resumed run makes the attempt again, as after a crash (journaled, the abort would
 * fail every resume). An engine that calls the step once the run has stopped gets the same: nothing runs.
 */
export async function runAttemptStep(
  outer: GateAttempt<unknown>,
  chain: Chain<GateAttempt<unknown>>,
  call: ResponseCall,
  digest: string | undefined,
): Promise<JournaledAttempt> {
  if (stopped(outer)) return unjournaled()
  const inner = new GateAttempt(outer.run, outer.attempt, outer.request, outer.startedAt)
  try {
    const answer = await chain(inner, call)
    const response = await inner.leave(answer)
    return { ...metered(inner, digest), response: journaledResponse(response) }
  } catch (error) {
    await inner.failOpen(error)
    if (stopped(outer)) return unjournaled()
    return { ...metered(inner, digest), failure: failureOf(error) }
  } finally {
    inner.close()
  }
}

// A function, not an inline check: the run's signal may have aborted since TypeScript last looked.
function stopped(outer: GateAttempt<unknown>): boolean {
  return outer.runSignal?.aborted === true
}

/** A step's answer that never comes: the run stopped (its loop has moved on), and the engine journals nothing. */
function unjournaled(): Promise<never> {
  return new Promise<never>(() => {})
}

function metered(inner: GateAttempt<unknown>, digest: string | undefined): JournaledAttempt {
  const named = { v: 1 as const, provider: inner.provider, ...(digest === undefined ? {} : { request: digest }) }
  if (inner.usage === undefined) return named
  const base = { ...named, usage: inner.usage, costUsd: inner.costUsd }
  return inner.unpriced === undefined ? base : { ...base, unpriced: inner.unpriced }
}

/** A failure as the gate classifies it: its kind, status and retry-after (what the rules read), its message and code. */
function failureOf(error: unknown): JournaledAttemptFailure {
  const { kind, status, retryAfterMs } = classifyError(error)
  const code = isProviderError(error) && typeof error.code === 'string' ? error.code.slice(0, MAX_JOURNALED_MESSAGE) : undefined
  return {
    kind,
    message: messageOf(error).slice(0, MAX_JOURNALED_MESSAGE),
    ...(status !== undefined && Number.isInteger(status) && status >= 0 && status <= 999 ? { status } : {}),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(code === undefined ? {} : { code }),
  }
}

/** Where a journaled attempt is read: the run, the step, the provider the run is on now and the digest of what it sends now. */
export interface StepPlace {
  readonly runId: string
  readonly step: string
  readonly provider: string
  readonly request: string | undefined
}

/**
 * Takes a journaled attempt (the step's answer, this process's or a replay's) into `outer` as if its
 * inside ran here: the meter's reading written on it, then its response answered (for the check) or its
 * failure thrown as a `ProviderError`. What the port did not write is a `corrupt-entry`; an attempt of
 * another provider, or of another request (the code or the input changed between the crash and the
 * resume: the journaled answer answers another question), a `divergence`.
 */
export function takeJournaled(outer: GateAttempt<unknown>, at: StepPlace, value: unknown): ModelResponse {
  let entry: JournaledAttempt
  try {
    entry = readAttempt(at, value)
  } catch (error) {
    // A value of your port's whose fields cannot be read (a throwing getter, a revoked proxy) is no entry the port wrote.
    if (isDurableRunError(error)) throw error
    throw new DurableRunError('corrupt-entry', {
      runId: at.runId,
      step: at.step,
      reason: `the journaled attempt cannot be read (${messageOf(error)})`,
      cause: error,
    })
  }
  if (entry.provider !== at.provider) {
    throw new DurableRunError('divergence', {
      runId: at.runId,
      step: at.step,
      reason: `the journal holds an attempt of provider ${quoted(entry.provider)} where this run calls ${quoted(at.provider)}: the code changed between the crash and the resume`,
    })
  }
  if (entry.request !== undefined && at.request !== undefined && entry.request !== at.request) {
    throw new DurableRunError('divergence', {
      runId: at.runId,
      step: at.step,
      reason: `the journal holds an attempt that sent another request (digest ${entry.request.slice(0, 12)}, this run sends ${at.request.slice(0, 12)}): the input or the code changed between the crash and the resume`,
    })
  }
  if (entry.usage !== undefined) {
    outer.usage = entry.usage
    outer.costUsd = entry.costUsd ?? 0
    outer.unpriced = entry.unpriced
  }
  const failure = entry.failure
  if (failure !== undefined) {
    throw new ProviderError(failure.message, {
      kind: failure.kind,
      provider: entry.provider,
      ...(failure.status === undefined ? {} : { status: failure.status }),
      ...(failure.retryAfterMs === undefined ? {} : { retryAfterMs: longestWait(failure.retryAfterMs) }),
      ...(failure.code === undefined ? {} : { code: failure.code }),
    })
  }
  outer.response = entry.response
  return entry.response as ModelResponse
}

/** The journaled attempt in `value`, each field checked; what does not pass is a `corrupt-entry`. */
function readAttempt(at: StepPlace, value: unknown): JournaledAttempt {
  const bad = (reason: string, cause?: unknown): DurableRunError =>
    new DurableRunError('corrupt-entry', { runId: at.runId, step: at.step, reason: `the journaled attempt ${reason}`, cause })
  if (!isObject(value) || value['v'] !== 1) throw bad('is not an attempt of version 1')
  const { provider, request, usage, costUsd, unpriced, response, failure } = value
  if (typeof provider !== 'string') throw bad('names no provider')
  if (request !== undefined && !(typeof request === 'string' && REQUEST_DIGEST.test(request))) throw bad('has a request digest that is no SHA-256')
  if (usage !== undefined && !isSoundUsage(usage)) throw bad('has a usage that is no count of tokens')
  if (costUsd !== undefined && !(typeof costUsd === 'number' && Number.isFinite(costUsd) && costUsd >= 0)) throw bad('has a cost that is no amount')
  if (unpriced !== undefined && typeof unpriced !== 'string') throw bad('has an unpriced reason that is no string')
  if ((response === undefined) === (failure === undefined)) throw bad('holds neither a response nor a failure (or both)')
  let checked: ModelResponse | undefined
  if (response !== undefined) {
    try {
      checked = checkedResponse(responseFromJournal(response, bad), provider)
    } catch (error) {
      if (isDurableRunError(error)) throw error
      throw bad(`has a response the gate would refuse (${messageOf(error)})`, error)
    }
  }
  const out = {
    v: 1 as const,
    provider,
    request: request as string | undefined,
    usage: usage as Usage | undefined,
    costUsd: costUsd as number | undefined,
    unpriced: unpriced as string | undefined,
  }
  if (checked !== undefined) return { ...out, response: checked }
  if (!isObject(failure)) throw bad('has a failure that is no object')
  const { kind, message, status, retryAfterMs, code } = failure
  if (!(ERROR_KINDS as readonly unknown[]).includes(kind)) throw bad(`has a failure of kind ${shownValue(kind)}`)
  if (typeof message !== 'string') throw bad('has a failure without a message')
  // The port cuts what it journals: a longer text is no entry it wrote.
  if (message.length > MAX_JOURNALED_MESSAGE) throw bad(`has a failure message longer than the ${MAX_JOURNALED_MESSAGE} characters the port journals`)
  if (status !== undefined && !(Number.isInteger(status) && (status as number) >= 0 && (status as number) <= 999))
    throw bad('has a failure whose status is no HTTP status')
  if (retryAfterMs !== undefined && !(typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0))
    throw bad('has a failure whose retry-after is no duration')
  if (code !== undefined && (typeof code !== 'string' || code.length > MAX_JOURNALED_MESSAGE))
    throw bad('has a failure whose code is no string the port journals')
  return {
    ...out,
    failure: {
      kind: kind as ErrorKind,
      message,
      status: status as number | undefined,
      retryAfterMs: retryAfterMs as number | undefined,
      code: code as string | undefined,
    },
  }
}

const REQUEST_DIGEST = /^[0-9a-f]{64}$/

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
