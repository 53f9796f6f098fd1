import type { RunOutcome } from '../events/event-map.ts'
import type { RunView } from './run/run-view.ts'

/**
 * Emits `run_end` with the run's totals. The caller checks `events.has('run_end')` first, so a run
 * nobody watches pays no call.
 */
export function emitRunEnd<T>(s: RunView<T>, outcome: RunOutcome, kind: string, provider: string, fromFallback: boolean): void {
  s.g.events.emit('run_end', {
    runId: s.runId,
    ...s.tags,
    outcome,
    kind,
    attempts: s.records.length,
    provider,
    usage: s.meter.usage,
    costUsd: s.meter.costUsd,
    durationMs: s.g.now() - s.started,
    fromFallback,
  })
}
