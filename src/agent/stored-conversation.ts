import { signalReason } from '../model/abort-reason.ts'
import type { DurablePort } from '../durable/durable-port.ts'
import { commitStep } from './durable-run-steps.ts'
import { raceAbort } from '../model/race-abort.ts'
import { isRecord } from '../model/is-record.ts'
import type { Message } from '../model/message.ts'
import { messageOf } from '../model/message-of.ts'
import { typeName } from '../model/describe-value.ts'
import { FailFastKinds } from '../model/fail-fast-kind.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { ZERO_USAGE } from '../model/usage.ts'
import { ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import { runDeadline, type RunDeadline } from '../gate/run/run-deadline.ts'
import { type AppendOutcome, type OnConflict, type SessionStore, type StoredConversation, staleBy } from '../sessions/session-store.ts'
import { formatFields } from '../sessions/message-format.ts'
import { WINDOW_OPTIONS, type SessionWindow } from '../sessions/session-window.ts'
import { checkStoredMessages } from './stored-messages.ts'
import { checkSessionId } from '../sessions/session-id.ts'
import { type AcceptedRun, SessionCommitError } from './session-commit-error.ts'

/** How long `agent.session(id)` waits for the store's `load` by default: 30 seconds. */
export const DEFAULT_LOAD_TIMEOUT_MS = 30_000

/** Options of `agent.session(id, options)`. */
export interface SessionOptions {
  /**
   * What a commit does when another run committed to the conversation since this session loaded it:
   * `append` commits after it (the result's `session.staleBy` says by how much the run was behind),
   * `fail` commits nothing and fails the run with kind `session-conflict` (the error still carries the
   * accepted result). @default 'append'
   */
  readonly onConflict?: OnConflict
  /** How much of the history each request carries (the stored history stays whole). @default the whole history */
  readonly window?: SessionWindow
  /**
   * How long opening the session (and reading it again after another run committed) waits for the
   * store's `load` (and `session.delete()` for the store's `delete`): past it, the call rejects with a
   * `ReliabilityFailFastError` of kind `timeout` instead of hanging on a store that never answers. Whole milliseconds from 1 to 2^31-1.
   * @default 30_000
   */
  readonly loadTimeoutMs?: number
}

/** `agent.session(id, options)`'s options, declared once: a misspelt `onconflict` is refused with "did you mean". */
export const SESSION_OPTIONS = optionsContract<SessionOptions>('agent.session', {
  onConflict: option.oneOf('append', 'fail'),
  window: option.nested(WINDOW_OPTIONS),
  loadTimeoutMs: option.duration(),
})

/** A session's link to its stored conversation. */
export interface StoredLink {
  readonly store: SessionStore
  readonly id: string
  readonly onConflict: OnConflict
  readonly window: SessionWindow | undefined
  readonly loadTimeoutMs: number
}

/** What bounds a commit: the run's signal, and its deadline when it has one (its expiry makes the failure `run-timeout`). */
export interface CommitBound {
  readonly signal: AbortSignal | undefined
  readonly deadline?: RunDeadline | undefined
  /** A durable run's port: the append is the run's step `session-commit`. */
  readonly durable?: DurablePort | undefined
}

/** An accepted run's exchange on its way to the store: the run, what it accepted, the version it was computed on, and the commit's bounds. */
export interface ExchangeCommit<R> extends CommitBound {
  readonly run: R
  readonly exchange: readonly Message[]
  readonly basedOn: number
}

/** Checks `agent.session(id, options)`'s arguments and returns the link. */
export function storedLink(store: SessionStore, id: unknown, options: unknown): StoredLink {
  // The stores' own rule, here too: a store of yours is never handed an id the library's stores refuse.
  checkSessionId(id, 'agent.session')
  const checked = SESSION_OPTIONS.check(options as SessionOptions | undefined)
  return {
    store,
    id,
    onConflict: checked.onConflict ?? 'append',
    window: checked.window,
    loadTimeoutMs: checked.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS,
  }
}

/**
 * A call into the conversation store (`load`, `delete`) bounded by the link's `loadTimeoutMs` and
 * `signal` (a run's, when a run reads it again): a store that never answers rejects with kind
 * `timeout`; it cannot hang the caller.
 */
async function storeCall<V>(link: StoredLink, what: 'load' | 'delete', call: () => V | PromiseLike<V>, signal?: AbortSignal): Promise<V> {
  const ms = link.loadTimeoutMs
  const expired = (): ReliabilityFailFastError =>
    new ReliabilityFailFastError({
      kind: FailFastKinds.Timeout,
      reason: `session "${link.id}": the store's ${what} did not answer within loadTimeoutMs (${ms} ms)`,
      phase: 'pre-check',
      attempts: [],
      usage: ZERO_USAGE,
      costUsd: 0,
    })
  const bound = runDeadline(ms, signal, expired)
  try {
    return await raceAbort(Promise.resolve().then(call), bound.signal, undefined, signalReason)
  } finally {
    bound.clear()
  }
}

/** Erases the conversation from its store, bounded like {@link loadConversation}. */
export function deleteConversation(link: StoredLink): Promise<void> {
  return storeCall(link, 'delete', () => link.store.delete(link.id))
}

/**
 * The store's answer to `load`, checked: a store of yours answering something else fails clearly.
 * The wait is bounded by the link's `loadTimeoutMs` (see `storeCall`).
 */
export async function loadConversation(link: StoredLink, signal?: AbortSignal): Promise<StoredConversation> {
  const loaded: unknown = await storeCall(link, 'load', () => link.store.load(link.id), signal)
  if (!isRecord(loaded) || !Array.isArray(loaded['messages']) || !isVersion(loaded['version'])) {
    throw new TypeError(`agent.session: the store's load("${link.id}") must resolve to { messages: Message[], version: number }, got ${typeName(loaded)}`)
  }
  // Checked whatever store answered (yours included): a record edited to hold a bad role, a broken
  // tool call or an ephemeral message is a SessionFormatError, never replayed to a model.
  checkStoredMessages(link.id, loaded['messages'])
  return loaded as unknown as StoredConversation
}

const isVersion = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/**
 * Appends an accepted run's exchange to the store, bounded by the run's signal and deadline. Resolves
 * to the outcome when committed; rejects with `SessionCommitError` (carrying the accepted run) on a
 * conflict under `onConflict: 'fail'`, when the store fails, refuses or answers nonsense, or with
 * kind `run-timeout` when the run's deadline passed before the store answered (this session's
 * history is left as it was; a store's write still in flight lands whole or not at all).
 */
export async function appendExchange<T, R extends AcceptedRun<T>>(
  link: StoredLink,
  commit: ExchangeCommit<R>,
): Promise<AppendOutcome & { readonly committed: true }> {
  const { run, exchange, basedOn, signal, durable } = commit
  const failed = (reason: string, cause?: unknown): SessionCommitError<T, R> =>
    new SessionCommitError<T, R>(FailFastKinds.SessionStoreFailed, run, link.id, `session "${link.id}": ${reason}`, undefined, cause)
  let outcome: unknown
  // The store gets a frozen copy: a store that changes its argument cannot change the run's result.
  const copy = Object.freeze(exchange.map((message) => Object.freeze({ ...message })))
  try {
    const store = (): Promise<AppendOutcome> =>
      Promise.resolve(link.store.append(link.id, { exchange: copy, expectedVersion: basedOn, onConflict: link.onConflict }))
    const append = commitStep(
      durable,
      basedOn,
      (base) => (durable === undefined ? store() : appendOnce(link, { exchange: copy, basedOn: base, signal }, store)),
      signal,
    )
    outcome = await (signal === undefined ? append : untilAborted(append, signal))
  } catch (cause) {
    if (commit.deadline?.expired === true) {
      throw new SessionCommitError<T, R>(
        FailFastKinds.RunTimeout,
        run,
        link.id,
        `session "${link.id}": the run did not finish within runTimeoutMs: the store had not committed the exchange (nothing was added to this session's history)`,
        undefined,
        cause,
      )
    }
    throw failed(`the store did not commit the exchange: ${messageOf(cause)}`, cause)
  }
  if (!isRecord(outcome) || typeof outcome['committed'] !== 'boolean' || !isVersion(outcome['version'])) {
    throw failed(`the store's append must resolve to { committed, version }, got ${typeName(outcome)}`)
  }
  if (outcome['committed'] === false) {
    throw new SessionCommitError<T, R>(
      FailFastKinds.SessionConflict,
      run,
      link.id,
      `session "${link.id}" moved on to version ${outcome['version']} while the run was computed on version ${basedOn}: nothing committed (onConflict: 'fail')`,
      outcome['version'],
    )
  }
  const stale = outcome['staleBy']
  return { committed: true, version: outcome['version'], staleBy: isVersion(stale) ? stale : 0 }
}

/**
 * A durable run's commit step: the store's append, unless the exchange is already stored after the
 * (journaled) version the run was computed on. The step is journaled after the append answers: a
 * process killed in between re-runs the step on resume, and appending again would store the exchange
 * twice, also when other runs committed to the conversation before the resume (the exchange is then
 * no longer the last one). A store holds no key of the run, so the exchange itself (its input, answers
 * and tool call ids) names it; the base keeps a run that repeats an earlier exchange word for word appending.
 */
async function appendOnce(
  link: StoredLink,
  commit: Pick<ExchangeCommit<unknown>, 'exchange' | 'basedOn' | 'signal'>,
  store: () => Promise<AppendOutcome>,
): Promise<AppendOutcome> {
  const { exchange, basedOn } = commit
  const stored = await loadConversation(link, commit.signal)
  const landed = landedAt(stored, exchange, basedOn)
  if (landed !== undefined) return { committed: true, version: landed, staleBy: staleBy(landed - 1, basedOn) }
  return store().then(outcomeData)
}

/**
 * The version at which `exchange` was committed after version `basedOn`, if it was. Each exchange the
 * library commits starts with its one user message, so the exchanges committed after `basedOn` are the
 * stored messages from the `version - basedOn`-th user message before the end.
 */
function landedAt(stored: StoredConversation, exchange: readonly Message[], basedOn: number): number | undefined {
  const { messages, version } = stored
  const starts: number[] = []
  for (let i = messages.length - 1; i >= 0 && starts.length < version - basedOn; i--) if (messages[i]?.role === 'user') starts.unshift(i)
  const n = exchange.length
  for (const [k, at] of starts.entries()) {
    const next = starts[k + 1] ?? messages.length
    if (next - at === n && sameMessages(messages.slice(at, next), exchange)) return version - (starts.length - 1 - k)
  }
  return undefined
}

/**
 * What {@link appendExchange} reads of a store's answer, and all the commit step journals: a store of yours may answer
 * more (a `__proto__` key among it), which the port would refuse as unsafe data, failing a commit that landed.
 */
function outcomeData(outcome: AppendOutcome): AppendOutcome {
  if (!isRecord(outcome)) return outcome
  const { committed, version, staleBy: stale } = outcome as Record<string, unknown>
  return (stale === undefined ? { committed, version } : { committed, version, staleBy: stale }) as AppendOutcome
}

/** True when both lists hold the same messages, as the stores keep them (their format's fields, in its order). */
function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  const text = (list: readonly Message[]): string => JSON.stringify(list.map((m) => formatFields(m as unknown as Record<string, unknown>)))
  return text(a) === text(b)
}

/** `work`, or a rejection as soon as `signal` aborts (the write may still land: whole, never half). */
function untilAborted<V>(work: Promise<V>, signal: AbortSignal): Promise<V> {
  return raceAbort(work, signal, undefined, () => new Error('the run was aborted while committing (the exchange may still be stored, whole)'))
}
