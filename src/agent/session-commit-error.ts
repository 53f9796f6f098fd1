import { assertObject, assertString } from '../model/argument-checks.ts'
import { isReliabilityFailFastError, ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import type { Usage } from '../model/usage.ts'
import type { AttemptRecord } from '../gate/attempt-record.ts'
import type { RunResult } from './run-result.ts'

/**
 * Why an accepted exchange was not committed: the conversation moved on (`onConflict: 'fail'`), the
 * store failed, or the run's deadline (`runTimeoutMs`) passed before the store answered.
 */
export type SessionCommitKind = 'session-conflict' | 'session-store-failed' | 'run-timeout'

/** What an accepted run produced: a `RunResult`, or for `session.stream` the gate's result. */
export interface AcceptedRun<T> {
  readonly runId: string
  readonly value: T
  readonly attempts: readonly AttemptRecord[]
  readonly usage: Usage
  readonly costUsd: number
}

/**
 * A run that was accepted but whose exchange was not committed to its stored conversation. It still
 * carries everything the run produced (`result`, and `value` for short), so nothing is lost: the
 * caller may show the answer, retry the commit on a fresh session, or drop it.
 */
export class SessionCommitError<T = unknown, R extends AcceptedRun<T> = RunResult<T>> extends ReliabilityFailFastError {
  override readonly kind: SessionCommitKind
  /** The accepted run, whole (a `RunResult` from `run*`, whose `exchange` is what was not committed; the gate's result from `stream`). */
  readonly result: R
  /** The conversation. */
  readonly sessionId: string
  /** The conversation's version when the commit was refused (unknown after a store failure). */
  readonly currentVersion: number | undefined

  constructor(kind: SessionCommitKind, result: R, sessionId: string, reason: string, currentVersion?: number, cause?: unknown) {
    assertString(kind, 'SessionCommitError: kind')
    assertObject(result, 'SessionCommitError: result', 'the accepted run { runId, value, attempts, usage, costUsd }')
    assertString(sessionId, 'SessionCommitError: sessionId')
    super({
      kind,
      reason,
      phase: 'post-decide',
      runId: result.runId,
      attempts: result.attempts,
      usage: result.usage,
      costUsd: result.costUsd,
      cause,
    })
    this.kind = kind
    this.result = result
    this.sessionId = sessionId
    this.currentVersion = currentVersion
  }

  /** The accepted value, as `runTyped` would have returned it. */
  get value(): T {
    return this.result.value
  }
}

/** Whether `value` is a {@link SessionCommitError}: a fail-fast error of kind `session-conflict`, `session-store-failed` or `run-timeout` carrying the accepted run. */
export function isSessionCommitError(value: unknown): value is SessionCommitError {
  return (
    isReliabilityFailFastError(value) &&
    (value.kind === 'session-conflict' || value.kind === 'session-store-failed' || value.kind === 'run-timeout') &&
    'result' in value &&
    'sessionId' in value
  )
}
