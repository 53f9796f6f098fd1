import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { EventHub } from './event-hub.ts'
import type { EventTags } from './event-map.ts'

/** Who a `validation_failed` event is about: the run, its tags, the call whose answer failed, and where the run stands. */
export interface ValidationFailedSource {
  readonly runId: string
  readonly tags: EventTags | undefined
  readonly provider: string
  readonly model: string | undefined
  /** The attempt whose answer failed. */
  readonly attempt: number
  /** The run's validation failures so far, this one included. */
  readonly cumulativeRetries: number
}

/**
 * Emits `validation_failed` for a failure (callers check `events.has('validation_failed')` first):
 * the one payload the gate, the agent's tool-argument loop and the AI SDK middleware all send.
 */
export function emitValidationFailed(events: EventHub, from: ValidationFailedSource, failure: ValidationFailure): void {
  events.emit('validation_failed', {
    runId: from.runId,
    ...from.tags,
    provider: from.provider,
    model: from.model,
    message: failure.message,
    stage: failure.stage,
    path: failure.path,
    rawOutput: failure.rawOutput,
    issues: failure.issues,
    attempt: from.attempt,
    cumulativeRetries: from.cumulativeRetries,
  })
}
