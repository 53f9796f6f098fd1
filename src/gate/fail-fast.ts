import type { Phase } from '../rules/scope.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import { ReliabilityFailFastError } from './fail-fast-error.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import { emitRunEnd } from './run-end.ts'
import type { RunView } from './run/run-view.ts'

/** The error that ends a run, with every attempt's log and the usage spent; `fail_fast` is emitted first. */
export function failFast<T>(
  s: RunView<T>,
  kind: string,
  reason: string,
  phase: Phase,
  cause?: unknown,
  validationError?: ValidationFailure,
): ReliabilityFailFastError {
  const error = new ReliabilityFailFastError({
    kind,
    reason,
    phase,
    runId: s.runId,
    attempts: s.records,
    usage: s.meter.usage,
    costUsd: s.meter.costUsd,
    validationError,
    cause,
  })
  const events = s.g.events
  if (events.has('fail_fast')) events.emit('fail_fast', { runId: s.runId, ...s.tags, attempt: s.attempt + 1, kind, reason, phase })
  if (events.has('run_end')) {
    emitRunEnd(s, 'fail-fast', kind, s.records.at(-1)?.provider ?? (s.g.providers[s.providerIdx] as ResolvedProvider).name, false)
  }
  return error
}
