import { hasBrand } from '../model/brand.ts'
import { typeName } from '../model/describe-value.ts'
import type { FailFastKind } from '../model/fail-fast-kind.ts'
import type { Usage } from '../model/usage.ts'
import type { Phase } from '../rules/scope.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { AttemptRecord } from './attempt-record.ts'
import { type FailFastPayload, failFastPayload } from './fail-fast-payload.ts'

const BRAND = Symbol.for('reliability-gate.ReliabilityFailFastError')

/** Everything a {@link ReliabilityFailFastError} carries. */
export interface FailFastDetails {
  /** One of {@link FailFastKind}, or the `kind` of a rule of yours that decided `fail-fast`. */
  readonly kind: FailFastKind | (string & {})
  readonly reason: string
  readonly phase: Phase
  /** The run that failed (as on its events); empty when the error was made outside a run. */
  readonly runId?: string
  readonly attempts: readonly AttemptRecord[]
  readonly usage: Usage
  readonly costUsd: number
  readonly validationError?: ValidationFailure | undefined
  readonly cause?: unknown
  /** The provider the run was on, for the payload when no attempt was made (else the last attempt's). */
  readonly provider?: string | undefined
}

/**
 * Thrown when the gate gives up: a rule decided `fail-fast`, no rule matched an error, the safety cap
 * was hit, or the run was aborted. Carries every attempt's log and the usage spent.
 */
export class ReliabilityFailFastError extends Error {
  override readonly name = 'ReliabilityFailFastError'
  readonly code = 'ERR_RELIABILITY_FAIL_FAST'
  /**
   * Why the run stopped: one of {@link FailFastKind} (`FailFastKinds.SchemaRetryExhausted`, ...),
   * or the `kind` of a rule of yours that decided `fail-fast`.
   */
  readonly kind: FailFastKind | (string & {})
  readonly reason: string
  readonly phase: Phase
  /** The run that failed, as on its events. */
  readonly runId: string
  readonly attempts: readonly AttemptRecord[]
  readonly usage: Usage
  readonly costUsd: number
  readonly validationError: ValidationFailure | undefined
  /** agentfootprint's `payload`: `{ phase, attempt, providerUsed, errorKind, errorMessage? }`, frozen. */
  readonly payload: FailFastPayload
  readonly [BRAND] = true

  constructor(details: FailFastDetails) {
    const problem = detailsProblem(details)
    if (problem !== undefined) throw new TypeError(`ReliabilityFailFastError: ${problem}`)
    // agentfootprint's message: `[reliability] <kind>: <reason>`.
    const payload = failFastPayload({ ...details, failure: details.validationError })
    super(messageFor(details, payload.errorMessage), details.cause === undefined ? undefined : { cause: details.cause })
    this.kind = details.kind
    this.reason = details.reason
    this.phase = details.phase
    this.runId = details.runId ?? ''
    this.attempts = details.attempts
    this.usage = details.usage
    this.costUsd = details.costUsd
    this.validationError = details.validationError
    this.payload = payload
  }

  /** The last attempt's log, if any attempt ran. */
  get lastAttempt(): AttemptRecord | undefined {
    return this.attempts.at(-1)
  }
}

/** Why `details` cannot make the error (a user's `new ReliabilityFailFastError(...)` given something else): the first field that is wrong. */
function detailsProblem(details: FailFastDetails): string | undefined {
  if (typeof details !== 'object' || details === null) return `expected { kind, reason, phase, attempts, usage, costUsd }, got ${typeName(details)}`
  for (const key of ['kind', 'reason', 'phase'] as const) {
    if (typeof details[key] !== 'string') return `${key} must be a string, got ${typeName(details[key])}`
  }
  if (!Array.isArray(details.attempts)) return `attempts must be an array of attempt records, got ${typeName(details.attempts)}`
  return undefined
}

/**
 * agentfootprint's message, `[reliability] <kind>: <reason>`, followed by what failed in parentheses
 * when the reason does not say it (a rule's label names the rule, not the provider error or the
 * validation issue a log reader needs).
 */
function messageFor(details: FailFastDetails, failed: string | undefined): string {
  const message = `[reliability] ${details.kind}: ${details.reason}`
  return failed === undefined || failed === '' || details.reason.includes(failed) ? message : `${message} (${failed})`
}

/**
 * A fail-fast reason as agentfootprint writes it: `reliability-<phase>: <why>` (`<why>` is the
 * deciding rule's label, else its kind, when a rule decided).
 */
export function phaseReason(phase: Phase, why: string): string {
  return `reliability-${phase}: ${why}`
}

/** Brand check that works across realms and duplicate package copies. */
export function isReliabilityFailFastError(value: unknown): value is ReliabilityFailFastError {
  return hasBrand(value, BRAND)
}
