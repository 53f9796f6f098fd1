import type { DurablePort } from '../../durable/durable-port.ts'
import { DurableRunError, isDurableRunError } from '../../durable/durable-run-error.ts'
import type { EventTags } from '../../events/event-map.ts'
import { FailFastKinds } from '../../model/fail-fast-kind.ts'
import { messageOf } from '../../model/message-of.ts'
import { MAX_TIMER_MS } from '../../model/options-contract.ts'
import { raceAbort } from '../../model/race-abort.ts'
import { isThenable } from '../../model/user-code.ts'
import type { Message } from '../../model/message.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ResponseCall } from '../../policies/chain-attempt.ts'
import { seededJitter } from '../../rules/jitter-source.ts'
import { withTail } from '../ephemeral-tail.ts'
import { frozenAttemptRequest } from '../frozen-attempt-request.ts'
import type { GateInternals, GateRunOptions, RunHooks } from '../gate-internals.ts'
import type { GateResult } from '../gate-result.ts'
import type { ResolvedProvider } from '../resolved-provider.ts'
import { runAttemptStep, takeJournaled } from './durable-attempt.ts'
import { durableRunBinding, durableRunRefusal, requestDigest } from './durable-binding.ts'
import { gateRun } from './run-gate.ts'
import type { DurableSteps } from './durable-steps.ts'
import { type AttemptRun, GateAttempt } from './gate-attempt.ts'
import { anchoredDeadline } from './anchored-deadline.ts'
import { runDeadline, shareDeadline, sharedDeadline } from './run-deadline.ts'
import type { RunView } from './run-view.ts'

/** The gate calls of each port so far, by call key: a second call of one turn (or of a plain gate) gets a key of its own. */
const callsOf = new WeakMap<DurablePort, Map<string, number>>()

/**
 * A durable gate run: its steps' names, and what the loop asks of it at each attempt. Each attempt is the step
 * `attempt:<key>:<n>` (`key`: the agent's turn, or `gate` for a plain gate call; a second gate call of the same key
 * in one run is `<key>#2`), each wait the sleep `wait:<key>:<n>`, the deadline's anchor the step `start:<key>`.
 */
export class DurableAttempts implements DurableSteps {
  readonly port: DurablePort
  readonly key: string
  readonly #chain: GateInternals<unknown>['durableChain']
  /**
   * The attempt in flight was answered from the journal: the run's events carry `replayed: true` until the next attempt
   * starts (the first execution reported them, the run's end included when this was its last attempt).
   */
  #replaying = false
  #replayedTags: EventTags | undefined = undefined
  /** The request `attempt_start` reports for the attempt in flight. */
  #request: ModelRequest | undefined = undefined
  /** The attempt whose `attempt_start` was emitted last: each attempt's is emitted once. */
  #started: GateAttempt<unknown> | undefined = undefined
  /** The journal's refusal of the run (a diverged replay, a corrupt entry, the engine failing): the run fails fast with it. */
  #refused: DurableRunError | undefined = undefined

  /**
   * Each attempt's step is bound to the digest of the question it asks (see `requestDigest`): a plain gate call. An
   * agent's turn is not: its request holds the stored history, which a resumed run may read with the run's own
   * exchange already committed; its attempts are bound to the run's input instead (see `bindDurableRun`).
   */
  readonly #bindsRequest: boolean

  constructor(port: DurablePort, key: string, chain: GateInternals<unknown>['durableChain'], bindsRequest: boolean) {
    this.port = port
    this.key = key
    this.#chain = chain
    this.#bindsRequest = bindsRequest
  }

  /** The run's next attempt, made as `startAttempt` makes it; its `attempt_start` waits until the step says whether it runs here. */
  start<T>(attempting: AttemptRun<T>): GateAttempt<T> {
    const run = attempting as RunView<T>
    this.#replaying = false
    const g = run.g
    const attempt = run.attempt + 1
    const request = g.userLinks || g.events.has('attempt_start') ? frozenAttemptRequest(run) : withTail(run.base, run.tail)
    this.#request = request
    return new GateAttempt(run, attempt, request, attempt === 1 ? run.started : g.now())
  }

  /**
   * The attempt through the outer chain (the check), whose innermost call is the attempt's step. An attempt the run
   * stopped (aborted, out of time) before its step said whether it runs here gets its `attempt_start` then, before its
   * `attempt_end`: an answer of the port's that comes later (the run has ended) emits nothing.
   */
  chain<T>(attempt: GateAttempt<T>, call: ResponseCall): unknown {
    const outer = attempt as GateAttempt<unknown>
    const answer = this.#chain.outer(outer, () => this.#step(outer, call))
    if (!isThenable(answer)) return answer
    return Promise.resolve(answer).then(undefined, (error: unknown) => {
      this.#emitStart(outer)
      throw error
    })
  }

  /** The attempt's step: its inside runs here at most once per run (`attempt_start` then), else its journaled outcome is taken (`attempt_start` after, replayed). */
  #step(outer: GateAttempt<unknown>, call: ResponseCall): Promise<ReturnType<typeof takeJournaled>> {
    if (this.#refused !== undefined) return Promise.reject(this.#refused)
    const step = `attempt:${this.key}:${outer.attempt}`
    const digest = this.#bindsRequest ? requestDigest(outer.request) : durableRunBinding(this.port)
    let ran = false
    const run = (): ReturnType<typeof runAttemptStep> => {
      ran = true
      this.#emitStart(outer)
      return runAttemptStep(outer, this.#chain.inner, call, digest)
    }
    return portCall(this.port, step, () => this.port.step(step, run))
      .then((value) => {
        // An answer that comes once the run stopped (its attempt_start already emitted) marks nothing.
        if (!ran && this.#started !== outer) {
          this.#replaying = true
          this.#emitStart(outer)
        }
        return takeJournaled(outer, { runId: this.port.runId, step, provider: outer.provider, request: digest }, value)
      })
      .catch((error: unknown) => {
        if (isDurableRunError(error)) this.#refused ??= error
        throw error
      })
  }

  /** Fails the run fast with `error` at its next attempt (the journal refused what came before it). */
  refuse(error: DurableRunError): void {
    this.#refused ??= error
  }

  /**
   * The run's decision guard: once the journal refused the run, whatever a rule decided, the run fails fast with kind
   * `durable-journal` (its cause the `DurableRunError`): retrying would only ask the journal again.
   */
  readonly guard = (): { readonly decision: 'fail-fast'; readonly kind: string } | undefined =>
    this.#refused === undefined ? undefined : { decision: 'fail-fast', kind: FailFastKinds.DurableJournal }

  #emitStart(attempt: GateAttempt<unknown>): void {
    if (this.#started === attempt) return
    this.#started = attempt
    const run = attempt.run as unknown as RunView<unknown>
    const events = run.g.events
    if (!events.has('attempt_start')) return
    const provider = (run.g.providers[attempt.providerIdx] as ResolvedProvider).name
    const request = this.#request as ModelRequest
    events.emit('attempt_start', {
      runId: run.runId,
      ...run.tags,
      attempt: attempt.attempt,
      provider,
      providerIdx: attempt.providerIdx,
      model: run.base.model,
      request,
    })
  }

  /**
   * The wait after attempt `attempt`: durable sleeps (a resumed run does not wait again for time it slept), bounded by
   * `signal`. A sleep the journal refuses is kept: the next attempt fails with it, and the guard fails the run fast.
   */
  wait(attempt: number, ms: number, signal: AbortSignal | undefined): Promise<void> {
    const base = `wait:${this.key}:${attempt}`
    const sleeps = async (): Promise<void> => {
      // A port sleeps at most MAX_TIMER_MS at once: a longer wait is slept in named parts (none once the run was aborted).
      for (let i = 0, left = ms; left > 0 && this.#refused === undefined && signal?.aborted !== true; i++, left -= MAX_TIMER_MS) {
        const name = i === 0 ? base : `${base}.${i + 1}`
        await portCall(this.port, name, () => this.port.sleep(name, Math.min(left, MAX_TIMER_MS), signal)).catch((error: DurableRunError) => {
          this.#refused ??= error
        })
      }
    }
    return raceAbort(sleeps(), signal)
  }

  /** A rule's delay, computed with the backoff's jitter seeded from the run's id, call and attempt: the same on every replay. */
  delay<R>(attempt: number, fn: () => R): R {
    return seededJitter(`${this.port.runId}:${this.key}:${attempt}`, fn)
  }

  /** The tags of the run's events: with `replayed: true` while the attempt in flight was answered from the journal. */
  tagsOf(tags: EventTags | undefined): EventTags | undefined {
    if (!this.#replaying) return tags
    return (this.#replayedTags ??= Object.freeze({ ...tags, replayed: true as const }))
  }
}

/** A call into the port as one promise: a DurableRunError as it is, any other throw or rejection the engine's own (`engine-failed`). */
function portCall<R>(port: DurablePort, step: string, call: () => Promise<R>): Promise<R> {
  const refusal = (cause: unknown): DurableRunError =>
    isDurableRunError(cause) ? cause : new DurableRunError('engine-failed', { runId: port.runId, step, reason: `the port failed: ${messageOf(cause)}`, cause })
  try {
    return Promise.resolve(call()).catch((cause: unknown) => Promise.reject(refusal(cause)))
  } catch (cause) {
    return Promise.reject(refusal(cause))
  }
}

/**
 * A gate run with a durable port: the run's id is the port's (another `runId` is a `TypeError`), its
 * `runTimeoutMs` anchored to the step `start:<key>` (the wall clock when the run first started, so a
 * resumed run keeps its original deadline; an agent run's shared deadline is the agent's), then the
 * loop with the run's {@link DurableAttempts} (`messages`: the request's, as its check validated them).
 */
export function runDurable<T>(g: GateInternals<T>, request: ModelRequest, options: GateRunOptions, messages: readonly Message[]): Promise<GateResult<T>> {
  const port = (options.durable ?? g.durable) as DurablePort
  // Here, not in gate.run: a closure there would put its locals in a context every plain run allocates.
  const loop = (o: GateRunOptions, hooks: RunHooks): Promise<GateResult<T>> => gateRun(g, request, o, hooks).run(messages)
  if (options.runId !== undefined && options.runId !== port.runId) {
    return Promise.reject(
      new TypeError(
        `gate.run: runId ${JSON.stringify(options.runId)} is not the durable port's run id ${JSON.stringify(port.runId)}: leave runId out, the port names the run`,
      ),
    )
  }
  const key = callKey(port, options.turn)
  const durable = new DurableAttempts(port, key, g.durableChain, options.turn === undefined)
  const refusal = durableRunRefusal(port)
  if (refusal !== undefined) durable.refuse(refusal)
  const withHooks: RunHooks = { durable, guardDecision: durable.guard }
  const shared = sharedDeadline(options)
  const runOptions: GateRunOptions = { ...options, runId: port.runId }
  if (shared !== undefined) shareDeadline(runOptions, shared)
  const ms = options.runTimeoutMs ?? g.runTimeoutMs
  if (ms === undefined || shared !== undefined) return loop(runOptions, withHooks)
  const step = `start:${key}`
  // The start step is bounded too: a port that never answers it still ends the run at runTimeoutMs, or when the caller aborts.
  const first = runDeadline(ms, options.signal ?? request.signal)
  const started = raceAbort(
    portCall(port, step, () => port.step(step, () => Date.now())),
    first.signal,
  )
  const refused = (error: DurableRunError): Promise<GateResult<T>> => {
    // The journal refused the run before its first attempt: that attempt fails with the refusal, and the run fails fast.
    durable.refuse(error)
    return loop(runOptions, withHooks)
  }
  return started.then(
    (startedAt) => {
      first.clear()
      if (typeof startedAt !== 'number' || !Number.isFinite(startedAt)) {
        return refused(new DurableRunError('corrupt-entry', { runId: port.runId, step, reason: 'the journaled start is no clock reading' }))
      }
      const deadline = anchoredDeadline(startedAt + ms - Date.now(), ms, options.signal ?? request.signal)
      // The shared deadline is the one the loop takes (before any runTimeoutMs of the options).
      const anchored: GateRunOptions = { ...runOptions }
      shareDeadline(anchored, deadline)
      const done = loop(anchored, withHooks)
      done.then(deadline.clear, deadline.clear)
      return done
    },
    (error: DurableRunError) => {
      first.clear()
      if (!first.signal.aborted) return refused(error)
      // Time ran out (or the caller aborted) before the port answered the start: the loop fails before it calls anything.
      const bounded: GateRunOptions = { ...runOptions }
      shareDeadline(bounded, first)
      return loop(bounded, withHooks)
    },
  )
}

/** The key of a gate call on `port`: its turn (else `gate`), numbered from the second call with the same key (`3#2`). */
function callKey(port: DurablePort, turn: number | undefined): string {
  let calls = callsOf.get(port)
  if (calls === undefined) {
    calls = new Map()
    callsOf.set(port, calls)
  }
  const base = turn === undefined ? 'gate' : String(turn)
  const count = (calls.get(base) ?? 0) + 1
  calls.set(base, count)
  return count === 1 ? base : `${base}#${count}`
}
