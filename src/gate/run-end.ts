import type { RunOutcome } from '../events/event-map.ts'
import type { RunView } from './run/run-view.ts'

/** How a run ended, as `run_end` reports it besides the run's totals. */
export interface RunEnd {
  readonly outcome: RunOutcome
  readonly kind: string
  /** Who gave the answer (`fallback` for the fallback's), or the provider of the last attempt. */
  readonly provider: string
  readonly fromFallback: boolean
}

/**
 * Emits `run_end` with the run's totals. The caller checks `events.has('run_end')` first, so a run
 * nobody watches pays no call.
 */
export function emitRunEnd<T>(s: RunView<T>, end: RunEnd): void {
  s.g.events.emit('run_end', {
    runId: s.runId,
    ...s.tags,
    outcome: end.outcome,
    kind: end.kind,
    attempts: s.records.length,
    provider: end.provider,
    usage: s.meter.usage,
    costUsd: s.meter.costUsd,
    durationMs: s.g.now() - s.started,
    fromFallback: end.fromFallback,
  })
}
