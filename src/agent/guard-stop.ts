import { ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import { FailFastKinds } from '../model/fail-fast-kind.ts'
import { ZERO_USAGE } from '../model/usage.ts'
import type { GuardOutcome, GuardSurface } from '../validation/guards/index.ts'

/**
 * The typed stop of a host's call when a guard blocks or escalates what is about to be sent: kind
 * `guard-escalated` for an escalation, `guard-blocked` otherwise, thrown before the model is called.
 */
export function guardStop(
  outcome: Exclude<GuardOutcome, { readonly action: 'allow' | 'redact' }>,
  surface: GuardSurface,
  runId: string,
): ReliabilityFailFastError {
  return new ReliabilityFailFastError({
    kind: outcome.action === 'escalate' ? FailFastKinds.GuardEscalated : FailFastKinds.GuardBlocked,
    reason: `guard '${outcome.guard}' ${outcome.action === 'escalate' ? 'escalated' : 'blocked'} the ${surface}: ${outcome.reason}`,
    phase: 'pre-check',
    runId,
    attempts: [],
    usage: ZERO_USAGE,
    costUsd: 0,
  })
}

/**
 * The typed stop of a run whose input guards its deadline or abort cut short: `run-timeout` past
 * the run's own deadline, else `aborted` (the guard's own fail-closed block is not the cause).
 */
export function guardCutShort(surface: GuardSurface, runId: string, late: boolean): ReliabilityFailFastError {
  const reason = late
    ? `the run did not finish within runTimeoutMs (its ${surface} guards were cut short)`
    : `the run was aborted while its ${surface} guards ran`
  return new ReliabilityFailFastError({
    kind: late ? FailFastKinds.RunTimeout : FailFastKinds.Aborted,
    reason,
    phase: 'pre-check',
    runId,
    attempts: [],
    usage: ZERO_USAGE,
    costUsd: 0,
  })
}
