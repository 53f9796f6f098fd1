import type { Observable } from 'rxjs'
import { option, optionsContract } from '../model/options-contract.ts'
import { typeName } from '../model/describe-value.ts'
import { DRIFT_INPUTS, DriftWindows, type DriftEvent, type DriftThreshold } from './drift-window.ts'
import { hubOf, type EventSource } from './event-source.ts'
import { lazyObservable } from './lazy-observable.ts'
import type { StreamObserver } from './replay-buffer.ts'
import { reportUnhandled } from './report-unhandled.ts'

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

const DRIFT_THRESHOLD = optionsContract<DriftThreshold>('driftMonitor threshold', {
  validationFailureRate: option.fraction(),
  meanAttempts: option.positiveNumber(),
})

const RATE = option.fraction()

/** The options of {@link driftMonitor}, declared once. */
export const DRIFT_MONITOR = optionsContract<DriftMonitorOptions>('driftMonitor', {
  window: option.integer(1),
  // A number is the validation failure rate; an object names each signal's threshold.
  threshold: (value) => (typeof value === 'number' ? RATE(value) : option.nested(DRIFT_THRESHOLD)(value)),
  minRuns: option.integer(1),
})

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
export function driftMonitor(source: EventSource, given: DriftMonitorOptions): DriftMonitor {
  if (typeof source !== 'object' || source === null || typeof source.on !== 'function') {
    throw new TypeError('driftMonitor: source must be a gate or an agent (something with on())')
  }
  if (typeof given !== 'object' || given === null) {
    throw new TypeError(`driftMonitor: expected { window, threshold }, got ${typeName(given)}`)
  }
  // Checked now, all of it: a threshold missing here would throw inside a listener on every run.
  const options = DRIFT_MONITOR.check(given)
  for (const key of ['window', 'threshold'] as const) {
    if (options[key] === undefined) throw new TypeError(`driftMonitor: ${key} is required (expected { window, threshold })`)
  }
  const window = options.window
  const minRuns = options.minRuns ?? window
  const threshold = typeof options.threshold === 'number' ? { validationFailureRate: options.threshold } : options.threshold
  if (threshold.validationFailureRate === undefined && threshold.meanAttempts === undefined) {
    throw new TypeError('driftMonitor: threshold must set validationFailureRate or meanAttempts (or be a number: the validation failure rate)')
  }
  const windows = new DriftWindows(window, Math.min(minRuns, window), threshold)
  const hub = hubOf(source)
  const observers = new Set<StreamObserver<DriftEvent>>()
  let stopped = false
  const report = (drift: DriftEvent): void => {
    if (hub?.has('drift') === true) hub.emit('drift', drift)
    for (const observer of [...observers]) {
      try {
        observer.next(drift)
      } catch (error) {
        reportUnhandled(error)
      }
    }
  }
  // Only the events it reads: a catch-all subscription would make the gate build every payload.
  const unsubscribes = DRIFT_INPUTS.map((name) =>
    source.on(name, (payload) => {
      for (const drift of windows.pushPayload(name, payload)) report(drift)
    }),
  )
  return {
    drift$: lazyObservable<DriftEvent>((observer) => {
      if (stopped) {
        observer.complete()
        return () => {}
      }
      observers.add(observer)
      return () => observers.delete(observer)
    }),
    stop() {
      if (stopped) return
      stopped = true
      for (const unsubscribe of unsubscribes) unsubscribe()
      for (const observer of [...observers]) observer.complete()
      observers.clear()
    },
  }
}
