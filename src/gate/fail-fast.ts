import type { Phase } from '../rules/scope.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import { phaseReason, ReliabilityFailFastError } from './fail-fast-error.ts'
import { payloadFields } from './fail-fast-payload.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { emitRunEnd } from './run-end.ts'
import type { RunView } from './run/run-view.ts'

/** Why a run stops: its fail-fast kind and reason (without the `reliability-<phase>: ` it is given), in which phase, and what caused it. */
export interface RunStop {
  readonly kind: string
  readonly reason: string
  readonly phase: Phase
  readonly cause?: unknown
  /** The validation failure of the last attempt, when the run stops on one. */
  readonly failure?: ValidationFailure | undefined
}

/** The error that ends a run, with every attempt's log and the usage spent; `fail_fast` is emitted first. */
export function failFast<T>(s: RunView<T>, stop: RunStop): ReliabilityFailFastError {
  const { kind, phase, cause, failure: validationError } = stop
  const reason = phaseReason(phase, stop.reason)
  const error = new ReliabilityFailFastError({
    kind,
    reason,
    phase,
    runId: s.runId,
    attempts: s.records,
    usage: s.meter.usage,
    costUsd: s.meter.costUsd,
    validationError,
    // As agentfootprint's: the error that drove the decision, the validation failure when the answer was refused.
    cause: cause ?? validationError,
    provider: (s.g.providers[s.providerIdx] as ResolvedProvider | undefined)?.name,
  })
  const events = s.g.events
  if (events.has('fail_fast')) events.emit('fail_fast', { runId: s.runId, ...s.tags, attempt: s.attempt + 1, kind, reason, ...payloadFields(error) })
  if (events.has('run_end')) {
    const provider = s.records.at(-1)?.provider ?? (s.g.providers[s.providerIdx] as ResolvedProvider).name
    emitRunEnd(s, { outcome: 'fail-fast', kind, provider, fromFallback: false })
  }
  return error
}
