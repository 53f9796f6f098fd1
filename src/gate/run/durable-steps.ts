import type { EventTags } from '../../events/event-map.ts'
import type { ResponseCall } from '../../policies/chain-attempt.ts'
import type { AttemptRun, GateAttempt } from './gate-attempt.ts'

/**
 * What the run loop asks of a durable run (see `DurableAttempts`, made by `runDurable`): its attempts
 * as journaled steps, its waits as durable sleeps, its jitter seeded, its events marked when replayed.
 */
export interface DurableSteps {
  /** The run's next attempt (its `attempt_start` emitted once the step says whether it runs here). */
  start<T>(run: AttemptRun<T>): GateAttempt<T>
  /** The attempt through the check, whose innermost call is the attempt's step. */
  chain<T>(attempt: GateAttempt<T>, call: ResponseCall): unknown
  /** The wait after attempt `attempt`, as durable sleeps bounded by `signal`. */
  wait(attempt: number, ms: number, signal: AbortSignal | undefined): Promise<void>
  /** `fn` (a rule's delay) with the backoff's jitter seeded from the run's id and `attempt`. */
  delay<R>(attempt: number, fn: () => R): R
  /** The tags of the run's events, with `replayed: true` while the attempt in flight was answered from the journal. */
  tagsOf(tags: EventTags | undefined): EventTags | undefined
}
