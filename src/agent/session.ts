import type { GateStreamOptions } from '../gate/stream/index.ts'
import type { AgentStream } from './agent-stream.ts'
import { type StreamedTurns, streamedTurns } from './streamed-turns.ts'
import { runDeadline } from '../gate/run/run-deadline.ts'
import type { Message } from '../model/message.ts'
import { AgentRun } from './agent-run.ts'
import { AGENT_RUN_OPTIONS, AGENT_STREAM_OPTIONS, DURABLE_STREAM } from './run-options-contract.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import { journaledStart, withDurableTools } from './durable-run-steps.ts'
import { anchoredDeadline } from '../gate/run/anchored-deadline.ts'
import { type AgentRunOptions, messageOf, type RunInput, type RunOptions } from './run-input.ts'
import { emitCommittedRunEnd, ENDS_AFTER_COMMIT, type RunCommit } from './run-events.ts'
import { SessionHistory } from './session-history.ts'
import { eventTags } from '../events/event-tags.ts'
import type { FinishedRun, RunProjection, RunResult } from './run-result.ts'
import type { StoredConversation } from '../sessions/session-store.ts'
import { windowed } from './windowed-history.ts'
import type { ApprovalDecision } from './approval/approval-types.ts'
import { type ApprovalClaim, type ClaimedResume, resumeWait, runClaimed, SessionApprovals } from './approval/session-approvals.ts'
import { DEFAULT_LEASE_MS, RESUME_OPTIONS, type ResumeOptions } from './approval/resume-options.ts'
import { isReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import { FailFastKinds } from '../model/fail-fast-kind.ts'
import { appendExchange, deleteConversation, type ExchangeCommit, loadConversation, type StoredLink } from './stored-conversation.ts'
import { guardRunInput } from './guard-run-input.ts'
import { newRunId } from '../events/run-id.ts'
import type { Begin, SessionRun } from './session-run.ts'

/** A stored conversation's run commits once the run is whole (the session's `#commitStored`): its own commit only says so. */
const DEFERRED: RunCommit = Object.freeze({ commit: (): typeof ENDS_AFTER_COMMIT => ENDS_AFTER_COMMIT })

/**
 * A run's options with the run's one deadline of `ms` (none without `ms`): from now, or from a durable
 * run's journaled start (`startedAt`), so a resumed run keeps its original deadline.
 */
function withRunDeadline(options: AgentRunOptions, ms: number | undefined): AgentRunOptions {
  if (ms === undefined) return options
  const at = options.startedAt
  const deadline = at === undefined ? runDeadline(ms, options.signal) : anchoredDeadline(at + ms - Date.now(), ms, options.signal)
  return { ...options, deadline }
}

/** A whole result as a projection reads a finished run. */
function finishedAs<T>(result: RunResult<T>): FinishedRun<T> {
  return { text: result.text, value: result.value, result: () => result }
}

const NO_OPTIONS: RunOptions = Object.freeze({})
const textOf = (run: FinishedRun<unknown>): string => run.text
const valueOfRun = (run: FinishedRun<unknown>): unknown => run.value
const whole = <T>(run: FinishedRun<T>): RunResult<T> => run.result()

/**
 * One conversation with an agent: its persisted history and the runs on it.
 *
 * Only accepted exchanges are committed, atomically at the end of a successful run: the user
 * message, each tool turn (with the final arguments of every call) and its results, and the answer.
 * No ephemeral feedback, no rejected answer or argument ever enters the history, and a failed run
 * leaves it as it was. Sessions of one agent share its gate and events, never their messages.
 *
 * A session opened with an id (`await agent.session('customer-42')`) is a conversation of the
 * agent's store: its history was loaded once when it opened, and each accepted exchange is appended
 * to the store in one atomic write before the run's result is handed out.
 */
export class Session<T> {
  readonly #runtime: AgentRuntime<T>
  /** The persisted history, which commits the exchange of each in-memory run. */
  readonly #history = new SessionHistory()
  /** The stored conversation's version this session's history reflects (0 for an in-memory session). */
  #version = 0
  readonly #link: StoredLink | undefined
  #approvals: SessionApprovals | undefined // The paused tool calls of this conversation, made at first use.

  /** @internal use `agent.session()` */
  constructor(runtime: AgentRuntime<T>, link?: StoredLink, loaded?: StoredConversation) {
    this.#runtime = runtime
    this.#link = link
    if (loaded === undefined) return
    this.#history.replace(loaded.messages)
    this.#version = loaded.version
  }

  /** The conversation's id in the agent's store; `undefined` for an in-memory session (`agent.session()`). */
  get id(): string | undefined {
    return this.#link?.id
  }

  /** How many exchanges the stored conversation had when this history was read (0 for an in-memory session). */
  get version(): number {
    return this.#version
  }

  /** The persisted history (a frozen snapshot). */
  get history(): readonly Message[] {
    return this.#history.snapshot
  }

  /** Runs one exchange and returns the answer's text. */
  run(input: RunInput, options?: RunOptions): Promise<string> {
    return this.#start(input, options, textOf)
  }

  /**
   * Runs one exchange and returns the validated value; throws `ReliabilityFailFastError` when the gate
   * gives up. A type argument names the value's type instead of the schema's (see `Agent.runTyped`).
   */
  runTyped<R = T>(input: RunInput, options?: RunOptions): Promise<R> {
    return this.#start(input, options, valueOfRun as RunProjection<T, R>)
  }

  /** Runs one exchange (the whole tool loop) and returns everything it produced. */
  runDetailed(input: RunInput, options?: RunOptions): Promise<RunResult<T>> {
    return this.#start(input, options, whole<T>)
  }

  #start<R>(input: RunInput, options: RunOptions | undefined, project: RunProjection<T, R>): Promise<R> {
    try {
      // Frozen once here: the exchange the run commits keeps this very message (the library's own).
      const user: Message = Object.freeze({ role: 'user', content: messageOf(input) })
      // No options, nothing to check (and no empty object made for the answer, unread here).
      if (options !== undefined) AGENT_RUN_OPTIONS.check(options)
      return this.#begin(user, options, project, undefined)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * Starts one run of the agent's loop (streamed through `streamed` for `stream`), on the history
   * (windowed for a stored conversation: a window that fails throws here, before anything starts)
   * under the run's one deadline, which ends with the run, commit included, whichever way it ends. A
   * durable run's deadline is anchored to its journaled start (the step `start`): a resumed run keeps its original one.
   */
  #begin<R>(user: Message, options: Begin | undefined, project: RunProjection<T, R>, streamed: StreamedTurns<T> | undefined): Promise<R> {
    const durable = withDurableTools(options ?? NO_OPTIONS, user)
    const ms = durable.runTimeoutMs ?? this.#runtime.gate.config.runTimeoutMs
    if (durable.durable === undefined || ms === undefined) return this.#launch(user, durable, project, streamed)
    return journaledStart(durable.durable, ms, durable.signal).then((startedAt) => this.#launch(user, { ...durable, startedAt }, project, streamed))
  }

  /** The run `#begin` starts, once its deadline's start is known (a durable run's journaled start, `options.startedAt`). */
  #launch<R>(user: Message, options: AgentRunOptions, project: RunProjection<T, R>, streamed: StreamedTurns<T> | undefined): Promise<R> {
    const link = this.#link
    const history = link === undefined ? this.#history.messages : windowed(this.#history.messages, link.window, options.runId)
    const runtime = streamed === undefined ? this.#runtime : streamed.runtime(this.#runtime)
    const run: SessionRun<T, R> = {
      runtime,
      history,
      user,
      options: withRunDeadline(options, options.runTimeoutMs ?? runtime.gate.config.runTimeoutMs),
      committer: this.#history,
      project,
    }
    // An in-memory run with no input to screen allocates nothing more than its AgentRun (the Agent.runTyped benchmark counts bytes).
    let done: Promise<R> = link === undefined && !runtime.screensInput ? new AgentRun<T, R>(run).run() : this.#screened(link, run)
    const deadline = run.options.deadline
    // A run that pauses for an approval is parked in the store, under the run's deadline; only an agent with such a tool watches for it.
    // The pause keeps the version the run is computed on: its resume commits on it, whichever session resumes it.
    if (runtime.pauses) {
      const wait = { signal: deadline?.signal ?? run.options.signal, late: () => deadline?.expired === true }
      const basedOn = link && (options.resume?.state.basedOn ?? this.#version)
      done = done.catch((error: unknown) => this.#approvalsOf().park(error, wait, basedOn))
    }
    if (deadline !== undefined) done.then(deadline.clear, deadline.clear)
    return done
  }

  /** A run whose input the content guards screen first, or a run on the stored conversation (or both). */
  #screened<R, S extends SessionRun<T, R>>(link: StoredLink | undefined, run: S): Promise<R> {
    const go = (screened: S): Promise<R> => (link === undefined ? new AgentRun<T, R>(screened).run() : this.#runStored<R, S>(link, screened))
    if (!run.runtime.screensInput) return go(run)
    const options = { ...run.options, runId: run.options.runId ?? newRunId() }
    const screen = { runId: options.runId, signal: options.deadline?.signal ?? options.signal, late: () => options.deadline?.expired === true }
    return guardRunInput(run.runtime as AgentRuntime<unknown>, run, screen).then((input) => go({ ...run, ...input, options }))
  }

  /**
   * Records a human's decision on the tool call a run of this session paused on (the
   * `approval.approvalId` of its `ApprovalPendingError`), once across every process sharing the
   * store: a second one is refused (`ApprovalError` `already-decided`), as is one past the expiry
   * (`expired`) or naming other arguments (`digest-mismatch`); `session.resume(approvalId)` goes on.
   */
  approve(approvalId: string, decision: ApprovalDecision): Promise<ApprovalClaim> {
    return this.#approvalsOf().approve(approvalId, decision)
  }

  /**
   * Goes on with the run paused on `approvalId` once it is decided (or expired): the paused call is
   * validated and guarded again, then runs once when approved (its `execute` gets the idempotency
   * key `<runId>:<turn>:<callId>`), or the model is told of the rejection or the expiry; the loop
   * goes on and commits as any run does. One resume claims it for `leaseMs` (the others: `already-claimed`, `already-resumed`);
   * one aborted or out of time gives the claim back, for another resume (the call's idempotency key is the same on each).
   */
  async resume(approvalId: string, options?: ResumeOptions): Promise<RunResult<T>> {
    const { leaseMs = DEFAULT_LEASE_MS, ...run } = RESUME_OPTIONS.check(options)
    // One deadline over the store's claim, the run (anchored to its start) and the release: a store that never answers holds no resume past it.
    const wait = resumeWait(run.runTimeoutMs ?? this.#runtime.gate.config.runTimeoutMs, run.signal)
    const go = (c: ClaimedResume) =>
      runClaimed(c, () => this.#begin(c.resume.state.user, { ...run, runId: c.pending.runId, resume: c.resume, ...wait.anchor }, whole<T>, undefined))
    return this.#approvalsOf().claim(approvalId, leaseMs, wait).then(go).finally(wait.clear)
  }

  #approvalsOf(): SessionApprovals {
    return (this.#approvals ??= new SessionApprovals(this.#link?.store, this.#link?.id, this.#link?.loadTimeoutMs))
  }

  /** A run on the stored conversation: the whole result first, then the commit, then the caller's projection. */
  // `S`, not `SessionRun<T, R>` itself: a parameter holding the runtime would make `Session<T>` invariant in `T`.
  async #runStored<R, S extends SessionRun<T, R>>(link: StoredLink, run: S): Promise<R> {
    const { runtime: rt, options, project } = run
    const basedOn = options.resume?.state.basedOn ?? this.#version
    const result = await new AgentRun({ ...run, committer: DEFERRED, project: whole<T> }).run()
    const accepted = result.exchange
    const who = { runId: result.runId, tags: eventTags(result.turns, options.metadata), agent: rt.name }
    const signal = options.deadline?.signal ?? options.signal
    let outcome: { readonly version: number; readonly staleBy: number }
    try {
      outcome = await this.#commitStored(link, { run: result, exchange: accepted, basedOn, signal, deadline: options.deadline, durable: options.durable })
    } catch (error) {
      emitCommittedRunEnd(rt.events, who, result, error)
      throw error
    }
    emitCommittedRunEnd(rt.events, who, result)
    return project(finishedAs({ ...result, session: { id: link.id, version: outcome.version, basedOn, staleBy: outcome.staleBy } }))
  }

  /** Appends to the store, then brings this session's history up to the stored one. */
  async #commitStored<R extends { readonly runId: string; readonly value: T } & Pick<RunResult<T>, 'attempts' | 'usage' | 'costUsd'>>(
    link: StoredLink,
    commit: ExchangeCommit<R>,
  ): Promise<{ readonly version: number; readonly staleBy: number }> {
    const { exchange, signal } = commit
    let outcome: { readonly version: number; readonly staleBy: number }
    try {
      outcome = await appendExchange<T, R>(link, commit)
    } catch (error) {
      // A conflict means the store answered and moved on: read it, so the next run is on the current version.
      // A store that failed is left alone (reading it again could hang the failed run).
      if (isReliabilityFailFastError(error) && error.kind === FailFastKinds.SessionConflict) await this.#reload(link, signal)
      throw error
    }
    if (outcome.version === this.#version + 1) {
      this.#history.commit(exchange)
      this.#version = outcome.version
    } else await this.#reload(link, signal)
    return outcome
  }

  /** Reads the stored conversation again (another run committed to it); keeps the newest view. A failed read keeps the old one. */
  async #reload(link: StoredLink, signal: AbortSignal | undefined): Promise<void> {
    try {
      const loaded = await loadConversation(link, signal)
      if (loaded.version < this.#version) return
      this.#history.replace(loaded.messages)
      this.#version = loaded.version
    } catch {
      // The next commit names the version this session read: the store still orders it right.
    }
  }

  /**
   * Runs one exchange as `runDetailed` does (the whole tool loop, argument retries and guards, the
   * output fallback, `costBudget`, `maxIterations`, the same commit) with every model call streamed
   * through `gate.stream` in `mode` (passthrough, buffer or progressive); `.result` is the run's
   * result, committed like `runDetailed`'s. `progressive` with tools is refused (`TypeError`), and so
   * is a durable port (`durable`): a durable run is `runDetailed` with `{ durable }`.
   */
  stream(input: RunInput, options: RunOptions & Pick<GateStreamOptions, 'mode'> = {}): AgentStream<T> {
    AGENT_STREAM_OPTIONS.check(options)
    if (options.durable !== undefined) throw new TypeError(DURABLE_STREAM)
    const user: Message = Object.freeze({ role: 'user', content: messageOf(input, 'agent.stream') })
    const { mode = 'passthrough', ...runOptions } = options
    const turns = streamedTurns(this.#runtime, mode)
    const result = this.#begin(user, runOptions, whole<T>, turns).then(
      (r) => {
        turns.end(r)
        return r
      },
      (error: unknown) => {
        turns.fail(error)
        throw error
      },
    )
    // The error reaches consumers through the iterator and the observable; `result` may go unread.
    result.catch(() => undefined)
    return turns.stream(result)
  }

  /** Forgets the persisted history of an in-memory session; a stored conversation is erased with `await session.delete()`. */
  reset(): void {
    if (this.#link !== undefined) throw new Error(`Session.reset: session "${this.#link.id}" is stored: erase it with await session.delete()`)
    this.#history.replace()
  }

  /** Erases the conversation: every stored record of it (the right to be forgotten), and this session's history. */
  async delete(): Promise<void> {
    if (this.#link !== undefined) await deleteConversation(this.#link)
    this.#history.replace()
    this.#version = 0
  }
}
