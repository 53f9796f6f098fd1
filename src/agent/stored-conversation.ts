import { raceAbort } from '../model/race-abort.ts'
import { isRecord } from '../model/is-record.ts'
import type { Message } from '../model/message.ts'
import { messageOf } from '../model/message-of.ts'
import { typeName } from '../model/describe-value.ts'
import { FailFastKinds } from '../model/fail-fast-kind.ts'
import type { AppendOutcome, OnConflict, SessionStore, StoredConversation } from '../sessions/session-store.ts'
import { checkWindow, type SessionWindow } from '../sessions/session-window.ts'
import { type AcceptedRun, SessionCommitError } from './session-commit-error.ts'

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
}

/** A session's link to its stored conversation. */
export interface StoredLink {
  readonly store: SessionStore
  readonly id: string
  readonly onConflict: OnConflict
  readonly window: SessionWindow | undefined
}

/** Checks `agent.session(id, options)`'s arguments and returns the link. */
export function storedLink(store: SessionStore, id: unknown, options: unknown): StoredLink {
  if (typeof id !== 'string' || id.length === 0) throw new TypeError(`agent.session: id must be a non-empty string, got ${typeName(id)}`)
  if (options !== undefined && !isRecord(options)) throw new TypeError(`agent.session: options must be an object, got ${typeName(options)}`)
  const onConflict = options?.['onConflict'] ?? 'append'
  if (onConflict !== 'append' && onConflict !== 'fail') throw new TypeError(`agent.session: onConflict must be 'append' or 'fail', got ${typeName(onConflict)}`)
  return { store, id, onConflict, window: checkWindow(options?.['window'], 'agent.session') }
}

/** The store's answer to `load`, checked: a store of yours answering something else fails clearly. */
export async function loadConversation(link: StoredLink): Promise<StoredConversation> {
  const loaded: unknown = await link.store.load(link.id)
  if (!isRecord(loaded) || !Array.isArray(loaded['messages']) || !isVersion(loaded['version'])) {
    throw new TypeError(`agent.session: the store's load("${link.id}") must resolve to { messages: Message[], version: number }, got ${typeName(loaded)}`)
  }
  return loaded as unknown as StoredConversation
}

const isVersion = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/**
 * Appends an accepted run's exchange to the store, bounded by the run's signal. Resolves to the
 * outcome when committed; rejects with `SessionCommitError` (carrying the accepted run) on a
 * conflict under `onConflict: 'fail'`, or when the store fails, refuses or answers nonsense.
 */
export async function appendExchange<T, R extends AcceptedRun<T>>(
  link: StoredLink,
  run: R,
  exchange: readonly Message[],
  basedOn: number,
  signal: AbortSignal | undefined,
): Promise<AppendOutcome & { readonly committed: true }> {
  const failed = (reason: string, cause?: unknown): SessionCommitError<T, R> =>
    new SessionCommitError<T, R>(FailFastKinds.SessionStoreFailed, run, link.id, `session "${link.id}": ${reason}`, undefined, cause)
  let outcome: unknown
  // The store gets a frozen copy: a store that changes its argument cannot change the run's result.
  const copy = Object.freeze(exchange.map((message) => Object.freeze({ ...message })))
  try {
    const append = Promise.resolve().then(() => link.store.append(link.id, { exchange: copy, expectedVersion: basedOn, onConflict: link.onConflict }))
    outcome = await (signal === undefined ? append : untilAborted(append, signal))
  } catch (cause) {
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

/** `work`, or a rejection as soon as `signal` aborts (the write may still land: whole, never half). */
function untilAborted<V>(work: Promise<V>, signal: AbortSignal): Promise<V> {
  return raceAbort(work, signal, undefined, () => new Error('the run was aborted while committing (the exchange may still be stored, whole)'))
}
