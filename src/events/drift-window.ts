import type { GateEvent, GateEventMap, GateEventName } from './event-map.ts'

/** The events a drift monitor reads. */
export const DRIFT_INPUTS = [
  'agent_run_start',
  'agent_run_end',
  'run_start',
  'attempt_end',
  'validation_failed',
  'run_end',
] as const satisfies readonly GateEventName[]

/** A drift event's payload. */
export type DriftEvent = GateEventMap['drift']

/** Thresholds of the two drift signals; a signal without one is not judged. */
export interface DriftThreshold {
  /** Validation failures per attempt over the window (0..1), e.g. `0.3`. */
  readonly validationFailureRate?: number
  /** Mean attempts per gate run over the window, e.g. `1.5`. */
  readonly meanAttempts?: number
}

/** What one gate run did on one provider and model. */
interface Sample {
  attempts: number
  failures: number
}

interface KeyState {
  readonly provider: string
  readonly model: string | undefined
  /** The last `window` samples, oldest first. */
  readonly samples: Sample[]
  readonly above: { validation_failure_rate: boolean; mean_attempts: boolean }
}

/**
 * The rolling windows of a drift monitor, per provider and model: fed events in order, it returns
 * the drift events each one causes. A gate run counts once per provider and model it used, with the
 * attempts it made and the validation failures they had there (a tool call's argument failures,
 * reported after its model call ended, count for that call). A signal is judged once `minRuns` runs
 * are in its window; crossing above the threshold, and coming back to it or under, are each reported
 * once.
 */
export class DriftWindows {
  readonly #window: number
  readonly #minRuns: number
  readonly #threshold: DriftThreshold
  readonly #keys = new Map<string, KeyState>()
  /** The samples of each gate run in flight, by run id and key. */
  readonly #open = new Map<string, Map<string, Sample>>()
  /** The samples of each agent run's latest ended gate run (late argument failures land there). */
  readonly #lastOfAgent = new Map<string, Map<string, Sample>>()

  constructor(window: number, minRuns: number, threshold: DriftThreshold) {
    this.#window = window
    this.#minRuns = minRuns
    this.#threshold = threshold
  }

  /** Feeds one event; returns the drift events it causes (usually none). */
  push(event: GateEvent): DriftEvent[] {
    return this.pushPayload(event.type, event as GateEventMap[typeof event.type])
  }

  /** Feeds one event given as its name and its payload (what `on(name, listener)` hands over). */
  pushPayload<K extends GateEventName>(type: K, payload: GateEventMap[K]): DriftEvent[] {
    // Every event read here carries `runId`; `attempt_end` and `validation_failed` also name the provider and model.
    const event = payload as { readonly runId: string; readonly provider: string; readonly model: string | undefined }
    switch (type as GateEventName) {
      case 'agent_run_start':
        this.#lastOfAgent.set(event.runId, new Map())
        return []
      case 'agent_run_end':
        this.#lastOfAgent.delete(event.runId)
        return []
      case 'run_start':
        this.#open.set(event.runId, new Map())
        return []
      case 'attempt_end':
        this.#sample(this.#open.get(event.runId), event.provider, event.model).attempts++
        return []
      case 'validation_failed':
        this.#sample(this.#open.get(event.runId) ?? this.#lastOfAgent.get(event.runId), event.provider, event.model).failures++
        return []
      case 'run_end':
        return this.#ended(event.runId)
      default:
        return []
    }
  }

  #sample(samples: Map<string, Sample> | undefined, provider: string, model: string | undefined): Sample {
    if (samples === undefined) return { attempts: 0, failures: 0 }
    const key = keyOf(provider, model)
    let sample = samples.get(key)
    if (sample === undefined) {
      sample = { attempts: 0, failures: 0 }
      samples.set(key, sample)
      if (!this.#keys.has(key)) this.#keys.set(key, { provider, model, samples: [], above: { validation_failure_rate: false, mean_attempts: false } })
    }
    return sample
  }

  #ended(runId: string): DriftEvent[] {
    const samples = this.#open.get(runId)
    this.#open.delete(runId)
    if (samples === undefined) return []
    if (this.#lastOfAgent.has(runId)) this.#lastOfAgent.set(runId, samples)
    const out: DriftEvent[] = []
    for (const [key, sample] of samples) {
      const state = this.#keys.get(key) as KeyState
      state.samples.push(sample)
      if (state.samples.length > this.#window) state.samples.shift()
      this.#judge(state, runId, out)
    }
    return out
  }

  #judge(state: KeyState, runId: string, out: DriftEvent[]): void {
    const runs = state.samples.length
    if (runs < this.#minRuns) return
    let attempts = 0
    let failures = 0
    for (const s of state.samples) {
      attempts += s.attempts
      failures += s.failures
    }
    const signals = [
      ['validation_failure_rate', this.#threshold.validationFailureRate, attempts === 0 ? 0 : failures / attempts],
      ['mean_attempts', this.#threshold.meanAttempts, attempts / runs],
    ] as const
    for (const [signal, threshold, value] of signals) {
      if (threshold === undefined) continue
      const above = value > threshold
      if (above === state.above[signal]) continue
      state.above[signal] = above
      out.push({ runId, signal, provider: state.provider, model: state.model, value, threshold, state: above ? 'above' : 'below', runs })
    }
  }
}

function keyOf(provider: string, model: string | undefined): string {
  return `${provider}\u0000${model ?? ''}`
}
