import type { EventTags } from '../events/event-map.ts'
import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import type { Terminal } from '../policies/middleware.ts'
import type { RunMeter } from '../policies/meter.ts'
import type { CompiledSchema } from '../validation/index.ts'
import type { AttemptRecord } from './attempt-record.ts'
import type { DecisionGuard, GateInternals } from './gate-internals.ts'

/** The mutable state of one `gate.run`, read and advanced by the run's steps. */
export interface RunState<T> {
  readonly g: GateInternals<T>
  /** The caller's request, never mutated. */
  readonly request: ModelRequest
  readonly signal: AbortSignal | undefined
  readonly runId: string
  readonly metadata: Readonly<Record<string, unknown>> | undefined
  /** Validation failures of the agent run before this gate call (`validation_failed.cumulativeRetries`). */
  readonly failuresBefore: number
  /** The agent's model turn of this gate run (`GateRunOptions.turn`). */
  readonly turn: number | undefined
  /** The turn and metadata every event of the run carries; `undefined` when the run has neither. */
  readonly tags: EventTags | undefined
  readonly schema: CompiledSchema<T> | undefined
  /** The provider call at the end of the chain (a streaming one for `gate.stream`). */
  readonly call: Terminal
  /** No links and the plain call: the provider is called directly, with no context or wrapping. */
  readonly direct: boolean
  readonly guard: DecisionGuard | undefined
  readonly meter: RunMeter
  readonly started: number
  /** Attempts made so far (scope.attempt). */
  attempt: number
  providerIdx: number
  /** The request of the current provider without the tail: the caller's, with the provider's model. */
  base: ModelRequest
  /** The ephemeral retry tail of the next attempt. */
  tail: readonly Message[]
  /** Replaced, never mutated: every scope handed to a rule keeps the history it was given. */
  history: readonly string[]
  /** The signature of each failure in `history` (its full issue set), same order; replaced, never mutated. */
  signatures: readonly string[]
  records: AttemptRecord[]
  retryAfterMs: number | undefined
  transientFailures: number
  /** When the latest attempt ended (the next one starts then, unless it waited). */
  lastTime: number
  /** When the current attempt started. */
  attemptStarted: number
}
