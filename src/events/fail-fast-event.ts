import type { ErrorKind } from '../model/error-kind.ts'
import type { FailFastKind } from '../model/fail-fast-kind.ts'
import type { Phase } from '../rules/scope.ts'

/**
 * The payload of `fail_fast`: the run is about to throw a ReliabilityFailFastError. Its kind, reason
 * and phase, and (as agentfootprint's `reliability.fail_fast` tells them) the provider the run was on,
 * the last attempt's error kind and the message of what failed (the error's `payload`).
 */
export interface FailFastEvent {
  readonly runId: string
  /** The attempt the run stopped at, numbered from 1. */
  readonly attempt: number
  readonly kind: FailFastKind | (string & {})
  readonly reason: string
  readonly phase: Phase
  readonly providerUsed: string
  readonly errorKind: ErrorKind
  readonly errorMessage?: string
}
