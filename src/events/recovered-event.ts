import type { ErrorKind } from '../model/error-kind.ts'

/**
 * The payload of `recovered`: a run succeeded after at least one failed attempt. As agentfootprint's
 * `reliability.recovered` tells it: how (`recoveredVia`: the decision on the last failed attempt, or
 * `fallback` when the configured fallback answered), after how many failures (`priorFailures`, the
 * same count as `failedAttempts`) and the error kind of the last failed attempt.
 */
export interface RecoveredEvent {
  readonly runId: string
  /** The attempt that succeeded, numbered from 1. */
  readonly attempt: number
  readonly failedAttempts: number
  readonly provider: string
  readonly recoveredVia: 'retry' | 'retry-other' | 'fallback'
  readonly priorFailures: number
  readonly errorKind: ErrorKind
}
