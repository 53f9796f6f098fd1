import { readDecision } from '../../durable/approval-decision.ts'
import { isReliabilityFailFastError, ReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import { FailFastKinds } from '../../model/fail-fast-kind.ts'
import { ZERO_USAGE } from '../../model/usage.ts'
import { messageOf } from '../../model/message-of.ts'
import { isRecord } from '../../model/is-record.ts'
import { callUser } from '../../model/user-code.ts'
import { runDeadline } from '../../gate/run/run-deadline.ts'
import { type ApprovalSlots, memoryApprovalSlots } from '../../sessions/approval-slots.ts'
import type { SessionStore } from '../../sessions/session-store.ts'
import { ApprovalError, ApprovalPendingError } from './approval-error.ts'
import { type ApprovalRecord, decodeRecord, encodeRecord } from './approval-record.ts'
import type { ApprovalDecision, ApprovalOutcome, PendingApproval } from './approval-types.ts'
import { APPROVAL_ID } from './args-digest.ts'
import { renewClaim } from './claim-renewal.ts'
import { RunPause, type RunResume } from './run-pause.ts'

/** What `session.approve` answers: the decision it recorded. */
export interface ApprovalClaim {
  readonly approvalId: string
  readonly outcome: ApprovalOutcome
}

/** A resume this process claimed: the run to go on with, and its end (the approval is then done) or its release. */
export interface ClaimedResume {
  readonly resume: RunResume
  readonly pending: PendingApproval
  finish(): Promise<void>
  /** Gives the claim back (the resumed run was aborted or ran out of time): the approval stays decided, for another resume. */
  release(): Promise<void>
}

/**
 * How long a store's answer is awaited: until `signal` aborts (the run's deadline, which joins the
 * caller's signal), when the store's wait fails as `run-timeout` if `late()` says the deadline passed,
 * else as `aborted`. The store is code the library does not own: a store that never answers cannot
 * hold a run, or a resume, past its deadline or its signal.
 */
export interface SlotWait {
  readonly signal: AbortSignal | undefined
  readonly late: () => boolean
  /** The run the wait belongs to, named by the failure. */
  readonly runId: string
}

/**
 * The one deadline of a resume of `ms` (none without `ms`): over the store's claim, the run (its deadline
 * anchored to the same start: `anchor` is its `startedAt`) and the store's release; `clear` ends it.
 */
export function resumeWait(ms: number | undefined, signal: AbortSignal | undefined): SlotWait & { readonly anchor: { startedAt?: number }; clear(): void } {
  const deadline = ms === undefined ? undefined : runDeadline(ms, signal)
  const late = (): boolean => deadline?.expired === true
  const anchor = deadline === undefined ? {} : { startedAt: Date.now() }
  return { signal: deadline?.signal ?? signal, late, runId: '', anchor, clear: () => deadline?.clear() }
}

/**
 * Runs `go`, the resumed run of `claimed`: the approval is done once the run ended, and its claim given
 * back when the run was aborted or ran out of time (`aborted`, `run-timeout`) so that another resume
 * may go on. A store failing to record either, or not answering within `wait`, leaves the claim to
 * lapse: another resume may take it over.
 */
export async function runClaimed<R>(claimed: ClaimedResume, go: () => Promise<R>): Promise<R> {
  let ended = true
  try {
    return await go()
  } catch (error) {
    if (isReliabilityFailFastError(error) && (error.kind === FailFastKinds.Aborted || error.kind === FailFastKinds.RunTimeout)) ended = false
    throw error
  } finally {
    await (ended ? claimed.finish() : claimed.release()).catch(() => undefined)
  }
}

/** The typed failure of a store's approval slots that failed, or did not answer within `wait`. */
function slotFailure(op: string, error: unknown, aborted: boolean, wait: SlotWait | undefined): ReliabilityFailFastError {
  // A wait that ended with a typed failure of its own (a decision's loadTimeoutMs) ends with it.
  const own: unknown = wait?.signal?.reason
  if (aborted && isReliabilityFailFastError(own)) return own
  const late = aborted && wait?.late() === true
  const kind = !aborted ? FailFastKinds.SessionStoreFailed : late ? FailFastKinds.RunTimeout : FailFastKinds.Aborted
  const reason = !aborted
    ? `the session store's approvals.${op} failed: ${messageOf(error)}`
    : `the session store had not answered approvals.${op} when ${late ? 'the run did not finish within runTimeoutMs' : 'the run was aborted'}`
  return new ReliabilityFailFastError({
    kind,
    reason,
    phase: 'post-decide',
    runId: wait?.runId ?? '',
    attempts: [],
    usage: ZERO_USAGE,
    costUsd: 0,
    cause: error,
  })
}

/** The conversation key of an in-memory session's approvals (its own slots: no other session reads them). */
const IN_MEMORY = 'in-memory'

/**
 * A session's paused tool calls, in its store's approval slots (an in-memory session's own): a
 * paused run parked, a decision claimed once (compare-and-set from `pending`), a resume claimed
 * once (from `decided`, or from a claim whose lease lapsed: its holder died before finishing).
 */
export class SessionApprovals {
  readonly #slots: ApprovalSlots | undefined
  readonly #key: string
  readonly #sessionId: string | undefined

  /** How long a decision waits for the store (the session's `loadTimeoutMs`; none for an in-memory session's own slots). */
  readonly #timeoutMs: number | undefined

  constructor(store: SessionStore | undefined, sessionId: string | undefined, timeoutMs?: number) {
    this.#slots = store === undefined ? memoryApprovalSlots() : store.approvals
    this.#key = sessionId ?? IN_MEMORY
    this.#sessionId = sessionId
    this.#timeoutMs = timeoutMs
  }

  /**
   * Parks a paused run (`RunPause`) and rejects with `ApprovalPendingError`; any other error is rethrown as it is.
   * A store that fails, or has not answered within the run's `wait`, fails the run typed (`session-store-failed`,
   * `run-timeout`, `aborted`): nothing was run or committed for the paused call.
   */
  async park(error: unknown, wait?: Omit<SlotWait, 'runId'>, basedOn?: number): Promise<never> {
    if (!(error instanceof RunPause) || error.state === undefined) throw error
    const pending: PendingApproval = { ...error.pending, sessionId: this.#sessionId }
    // The run's own user message: as the input guards left it (a redacted email is never stored with the pause).
    const run = { ...error.state, settled: error.settled, ...(basedOn === undefined ? {} : { basedOn }) }
    const record: ApprovalRecord = { v: 1, status: 'pending', pending, run }
    try {
      // A resumed run that pauses again on the same call and arguments finds its approval already there: it stands.
      const body = encodeRecord(record)
      await this.#slot(pending.approvalId, 'create', (slots) => slots.create(this.#key, pending.approvalId, body), wait && { ...wait, runId: pending.runId })
    } catch (failure) {
      error.ended?.(failure)
      throw failure
    }
    error.ended?.()
    throw new ApprovalPendingError(pending)
  }

  /** Records the decision once: `already-decided` for a second one, `expired` past the approval's expiry, `digest-mismatch` for other arguments. */
  async approve(approvalId: unknown, decision: ApprovalDecision, now = Date.now()): Promise<ApprovalClaim> {
    const id = this.#checkId(approvalId)
    const read = readDecision(decision)
    if (typeof read === 'string') throw new ApprovalError('invalid-decision', id, read)
    // No run bounds a decision: the store's answers are awaited within the session's loadTimeoutMs, as its load is.
    const ms = this.#timeoutMs
    const expired = (): ReliabilityFailFastError =>
      new ReliabilityFailFastError({
        kind: FailFastKinds.Timeout,
        reason: `session "${this.#key}": the store's approvals did not answer the decision on ${id} within loadTimeoutMs (${ms} ms)`,
        phase: 'pre-check',
        runId: '',
        attempts: [],
        usage: ZERO_USAGE,
        costUsd: 0,
      })
    const deadline = ms === undefined ? undefined : runDeadline(ms, undefined, expired)
    try {
      return await this.#decide(id, read, deadline && { signal: deadline.signal, late: () => false, runId: '' }, now)
    } finally {
      deadline?.clear()
    }
  }

  /** Records the decision `read` on `id` once (see `approve`), the store awaited within `wait`. */
  async #decide(id: string, read: Exclude<ReturnType<typeof readDecision>, string>, wait: SlotWait | undefined, now: number): Promise<ApprovalClaim> {
    const { rev, record } = await this.#read(id, wait)
    if (read.argsDigest !== undefined && read.argsDigest !== record.pending.argsDigest)
      throw new ApprovalError('digest-mismatch', id, 'the decision names other arguments than the paused call: an edited call needs its own approval')
    if (record.status !== 'pending') throw new ApprovalError('already-decided', id, `it was decided already (${record.decision?.outcome ?? record.status})`)
    if (now >= record.pending.expiresAt) {
      await this.#swap(id, rev, { ...record, status: 'decided', decision: { outcome: 'expired', decidedAt: now } }, wait)
      throw new ApprovalError('expired', id, `it expired at ${new Date(record.pending.expiresAt).toISOString()}`)
    }
    const outcome: ApprovalOutcome = read.approved ? 'approved' : 'rejected'
    const decided: ApprovalRecord = {
      ...record,
      status: 'decided',
      decision: { outcome, decidedAt: now, ...(read.reason === undefined ? {} : { reason: read.reason }) },
    }
    if (!(await this.#swap(id, rev, decided, wait))) throw new ApprovalError('already-decided', id, 'another decision was recorded first')
    return Object.freeze({ approvalId: id, outcome })
  }

  /**
   * Claims the resume of a decided (or expired) approval for `leaseMs`: once, unless the holder's lease lapses unfinished.
   * A resume whose `signal` is aborted already claims nothing (its run could not go on, and would leave the approval done).
   */
  async claim(approvalId: unknown, leaseMs: number, wait?: SlotWait, now = Date.now()): Promise<ClaimedResume> {
    const id = this.#checkId(approvalId)
    if (wait?.signal?.aborted === true) {
      const late = wait.late()
      const reason = late
        ? 'the resume did not finish within runTimeoutMs before it claimed the approval (the approval is left to another resume)'
        : 'the resume was aborted before it claimed the approval (the approval is left to another resume)'
      const kind = late ? FailFastKinds.RunTimeout : FailFastKinds.Aborted
      throw new ReliabilityFailFastError({ kind, reason, phase: 'pre-check', runId: '', attempts: [], usage: ZERO_USAGE, costUsd: 0 })
    }
    const { rev, record } = await this.#read(id, wait)
    if (record.status === 'done') throw new ApprovalError('already-resumed', id, 'its run was resumed already')
    if (record.status === 'resuming' && (record.claim?.until ?? 0) > now) throw new ApprovalError('already-claimed', id, 'another resume holds it')
    let decision = record.decision
    if (decision === undefined) {
      if (now < record.pending.expiresAt) throw new ApprovalError('not-decided', id, 'nobody decided it yet: approve or reject it first')
      decision = { outcome: 'expired', decidedAt: now }
    }
    const token = `${now}-${Math.random().toString(36).slice(2)}`
    const claimed: ApprovalRecord = { ...record, status: 'resuming', decision, claim: { token, until: now + leaseMs } }
    let won: boolean
    try {
      won = await this.#swap(id, rev, claimed, wait)
    } catch (failure) {
      // The claim may have landed while the wait ended (the resume aborted or out of time as the store answered): given
      // back (if it is this resume's), without holding the caller, so that the next resume goes on now, not a lease later.
      this.#release(id, token, { signal: AbortSignal.timeout(leaseMs), late: () => false, runId: wait?.runId ?? '' }).catch(() => undefined)
      throw failure
    }
    if (!won) throw new ApprovalError('already-claimed', id, 'another resume claimed it first')
    const { pending, run } = record
    const resume: RunResume = {
      state: run,
      call: { id: pending.callId, name: pending.tool, args: pending.args },
      approval: { approvalId: id, outcome: decision.outcome, reason: decision.reason },
    }
    // After the run, the store is awaited within the resume's deadline while it lasts; past it (the run was aborted or ran
    // out of time), within the lease, past which the claim lapses anyway.
    const after = (): SlotWait | undefined =>
      wait?.signal?.aborted === true ? { signal: AbortSignal.timeout(leaseMs), late: () => false, runId: wait.runId } : wait
    // While the run goes on, its claim is renewed: only a resume that stopped renewing (its process died) is taken over.
    // Each renewal waits for the store within the lease, and within the resume's deadline: a hung store holds no resume past it.
    const renewing = (): SlotWait => {
      const lease = AbortSignal.timeout(leaseMs)
      return { signal: wait?.signal === undefined ? lease : AbortSignal.any([wait.signal, lease]), late: () => false, runId: pending.runId }
    }
    const renewal = renewClaim(() => this.#renew(id, token, leaseMs, renewing()), leaseMs)
    return {
      resume,
      pending,
      finish: () => renewal.stop().then(() => this.#finish(id, token, after())),
      release: () => renewal.stop().then(() => this.#release(id, token, after())),
    }
  }

  /** Extends this resume's claim to `leaseMs` from now; `false` once the claim is no longer its own (finished, or taken over). */
  async #renew(id: string, token: string, leaseMs: number, wait: SlotWait): Promise<boolean> {
    const { rev, record } = await this.#read(id, wait)
    if (record.status !== 'resuming' || record.claim?.token !== token) return false
    await this.#swap(id, rev, { ...record, claim: { token, until: Date.now() + leaseMs } }, wait)
    return true
  }

  /** Gives a claim back unfinished (unless another resume took it over): decided again, claimable at once. */
  async #release(id: string, token: string, wait: SlotWait | undefined): Promise<void> {
    const { rev, record } = await this.#read(id, wait)
    if (record.status !== 'resuming' || record.claim?.token !== token) return
    const { claim: _claim, ...released } = record
    await this.#swap(id, rev, { ...released, status: 'decided' }, wait)
  }

  /** Marks the approval done after its resumed run ended (unless another resume took the lapsed claim over). */
  async #finish(id: string, token: string, wait: SlotWait | undefined): Promise<void> {
    const { rev, record } = await this.#read(id, wait)
    if (record.status === 'resuming' && record.claim?.token === token) await this.#swap(id, rev, { ...record, status: 'done' }, wait)
  }

  #checkId(approvalId: unknown): string {
    if (typeof approvalId !== 'string' || !APPROVAL_ID.test(approvalId))
      throw new ApprovalError('invalid-id', String(approvalId), "an approval id is 'apr_' and 32 hex digits (ApprovalPendingError's approval.approvalId)")
    return approvalId
  }

  #store(id: string): ApprovalSlots {
    if (this.#slots === undefined) throw new ApprovalError('no-approval-store', id, "the agent's session store keeps no approvals (it has no `approvals`)")
    return this.#slots
  }

  async #read(id: string, wait?: SlotWait): Promise<{ readonly rev: number; readonly record: ApprovalRecord }> {
    const slot: unknown = await this.#slot(id, 'read', (slots) => slots.read(this.#key, id), wait)
    if (slot === undefined || slot === null) throw new ApprovalError('unknown-approval', id, 'this session holds no such approval')
    if (!isRecord(slot) || !Number.isSafeInteger(slot['rev'])) throw new ApprovalError('corrupt-record', id, 'the store answered no { rev, body } slot')
    return { rev: slot['rev'] as number, record: decodeRecord(this.#key, id, slot['body']) }
  }

  async #swap(id: string, rev: number, record: ApprovalRecord, wait?: SlotWait): Promise<boolean> {
    const body = encodeRecord(record)
    return (await this.#slot(id, 'swap', (slots) => slots.swap(this.#key, id, rev, body), wait)) === true
  }

  /** One call of the store's approval slots, through the boundary into code the library does not own: bounded by `wait`, a throw typed. */
  async #slot<R>(id: string, op: string, call: (slots: ApprovalSlots) => R | PromiseLike<R>, wait: SlotWait | undefined): Promise<R> {
    const slots = this.#store(id)
    const answer = await callUser(() => call(slots), wait?.signal)
    if (answer.ok) return answer.value
    throw slotFailure(op, answer.error, answer.aborted, wait)
  }
}
