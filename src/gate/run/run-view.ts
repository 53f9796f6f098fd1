import type { EventTags } from '../../events/event-map.ts'
import type { Message } from '../../model/message.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { MeterTotals } from '../../policies/meter.ts'
import type { AttemptRecord } from '../attempt-record.ts'
import type { GateInternals } from '../gate-internals.ts'
import type { RunSettings } from './run-settings.ts'

/**
 * What the steps of one `gate.run` read of it: the run's settled facts and where its loop stands.
 * Read-only: the loop (`run-gate.ts`) is the only writer; a step returns what changed.
 */
export interface RunView<T> {
  readonly g: GateInternals<T>
  /** The caller's request, never mutated. */
  readonly request: ModelRequest
  /** The run's signal: the caller's, joined with the run deadline (`runTimeoutMs`) when there is one. */
  readonly signal: AbortSignal | undefined
  readonly runId: string
  readonly metadata: Readonly<Record<string, unknown>> | undefined
  /** The agent's model turn of this gate run (`GateRunOptions.turn`). */
  readonly turn: number | undefined
  /** The turn and metadata every event of the run carries; `undefined` when the run has neither. */
  readonly tags: EventTags | undefined
  /** What the run took from its options and hooks: its schema, its decision guard, the failures before it, its deadline. */
  readonly settings: RunSettings<T>
  /** The run's usage and cost so far, failed attempts included. */
  readonly meter: MeterTotals
  readonly started: number
  /** Attempts made so far (scope.attempt). */
  readonly attempt: number
  readonly providerIdx: number
  /** The request of the current provider without the tail: the caller's, with the provider's model. */
  readonly base: ModelRequest
  /** The ephemeral retry tail of the next attempt. */
  readonly tail: readonly Message[]
  /** Replaced, never mutated: every scope handed to a rule keeps the history it was given. */
  readonly history: readonly string[]
  /** The signature of each failure in `history` (its full issue set), same order. */
  readonly signatures: readonly string[]
  readonly records: readonly AttemptRecord[]
  readonly retryAfterMs: number | undefined
  readonly transientFailures: number
  /** When the latest attempt ended (the next one starts then, unless it waited). */
  readonly lastTime: number
}
