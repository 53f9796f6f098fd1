import type { Observable, Subject } from 'rxjs'
import { positiveInteger } from '../model/assert-number.ts'
import { DriftWindows, type DriftEvent, type DriftThreshold } from './drift-window.ts'
import { hubOf, type EventSource } from './event-source.ts'
import { loadRxjs } from './load-rxjs.ts'

/** Options of {@link driftMonitor}. */
export interface DriftMonitorOptions {
  /** Gate runs per provider and model in the rolling window. */
  readonly window: number
  /** When a signal drifts. A number is a validation-failure rate (per attempt, 0..1). */
  readonly threshold: number | DriftThreshold
  /** Runs a window must hold before it is judged. @default window */
  readonly minRuns?: number
}

/** A running drift monitor. */
export interface DriftMonitor {
  /** The drift events, as they happen (also emitted as `drift` on the monitored gate or agent). */
  readonly drift$: Observable<DriftEvent>
  /** Stops watching; `drift$` completes. */
  stop(): void
}

/**
 * Watches a gate's or an agent's events for drift: per provider and model, the rolling
 * validation-failure rate (failures per attempt) and mean attempts per gate run over the last
 * `window` runs. When a signal crosses its threshold (and when it comes back), a `drift` event is
 * emitted on the gate or agent itself, so `on('drift')`, `events$`, recorded traces and
 * OpenTelemetry (`reliability_gate.drift`) all see it, and on `drift$`.
 *
 * @example
 * const monitor = driftMonitor(agent, { window: 50, threshold: { validationFailureRate: 0.2, meanAttempts: 1.5 } })
 * agent.on('drift', (e) => alert(`${e.model}: ${e.signal} ${e.state} ${e.threshold} (${e.value})`))
 */
export function driftMonitor(source: EventSource, options: DriftMonitorOptions): DriftMonitor {
  const rx = loadRxjs()
  if (rx === undefined) throw new Error('driftMonitor needs rxjs, which cannot be loaded synchronously in this runtime')
  const window = positiveInteger(options.window, 'driftMonitor: window')
  const minRuns = positiveInteger(options.minRuns, 'driftMonitor: minRuns', window)
  const threshold = typeof options.threshold === 'number' ? { validationFailureRate: options.threshold } : options.threshold
  const windows = new DriftWindows(window, Math.min(minRuns, window), threshold)
  const hub = hubOf(source)
  const drift: Subject<DriftEvent> = new rx.Subject<DriftEvent>()
  const subscription = source.events$
    .pipe(
      rx.filter((e) => e.type !== 'drift'),
      rx.concatMap((e) => windows.push(e)),
    )
    .subscribe((e) => {
      if (hub?.has('drift') === true) hub.emit('drift', e)
      drift.next(e)
    })
  return {
    drift$: drift.asObservable(),
    stop() {
      subscription.unsubscribe()
      drift.complete()
    },
  }
}
