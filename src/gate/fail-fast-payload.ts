import type { ErrorKind } from '../model/error-kind.ts'
import { messageOf } from '../model/message-of.ts'
import type { Phase } from '../rules/scope.ts'
import type { AttemptRecord } from './attempt-record.ts'

/**
 * agentfootprint's structured account of a fail-fast (`ReliabilityFailFastError.payload`): in which
 * phase, after how many attempts, on which provider, the last attempt's error kind and the message of
 * what failed (the provider's error, or the validation failure).
 */
export interface FailFastPayload {
  readonly phase: Phase
  /** Attempts made when the run stopped, as `scope.attempt` counts them (0 when a PreCheck rule stopped the first). */
  readonly attempt: number
  /** The provider of the last attempt (before any attempt: the provider the first would have called; empty when unknown). */
  readonly providerUsed: string
  /** The last attempt's error kind (`ok` before any attempt, or when it failed on no error of its own). */
  readonly errorKind: ErrorKind
  /** The message of the provider's error or of the validation failure, when there is one. */
  readonly errorMessage?: string
}

/** The payload's fields as the `fail_fast` event carries them (its `attempt` numbers the attempt, from 1). */
export function payloadFields(error: { readonly payload: FailFastPayload }): Omit<FailFastPayload, 'attempt'> {
  const { phase, providerUsed, errorKind, errorMessage } = error.payload
  return errorMessage === undefined ? { phase, providerUsed, errorKind } : { phase, providerUsed, errorKind, errorMessage }
}

/** What {@link failFastPayload} reads. */
export interface PayloadSource {
  readonly phase: Phase
  readonly attempts: readonly AttemptRecord[]
  readonly provider?: string | undefined
  readonly cause?: unknown
  readonly failure?: unknown
}

/** The frozen payload of a fail-fast, read from its attempts log, its cause and its validation failure. */
export function failFastPayload(source: PayloadSource): FailFastPayload {
  const last = source.attempts.at(-1)
  const failed = source.cause ?? source.failure
  return Object.freeze({
    phase: source.phase,
    attempt: source.attempts.length,
    providerUsed: source.provider ?? last?.provider ?? '',
    errorKind: last?.errorKind ?? 'ok',
    ...(failed === undefined ? {} : { errorMessage: messageOf(failed) }),
  })
}
