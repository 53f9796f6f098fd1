import type { GateResult } from '../gate-result.ts'
import type { GateRunOptions } from '../gate-internals.ts'

/**
 * How a streamed answer reaches the consumer:
 * - `passthrough`: chunks flow as they come; retry or failover only before the first content
 *   chunk, after which any non-`ok` decision fails fast with kind `mid-stream-not-retryable`;
 * - `buffer`: nothing is delivered until the whole answer passed validation; retries are
 *   invisible except through events;
 * - `progressive`: the JSON is validated while it streams and partial values are emitted; a
 *   definite violation aborts the provider's stream at once and retries with feedback.
 */
export type StreamMode = 'passthrough' | 'buffer' | 'progressive'

/** Options of one `gate.stream`: `gate.run`'s but `durable` (a stream's attempts are not journaled: a replayed attempt's deltas could not be delivered again). */
export interface GateStreamOptions extends Omit<GateRunOptions, 'durable'> {
  /** @default 'passthrough' */
  readonly mode?: StreamMode
}

/**
 * What a gate stream yields. Every event names its `attempt` (1-indexed), so outputs of different
 * attempts are never mixed up: a consumer that shows `partial` values replaces them when the
 * attempt changes (`discarded` says the attempt's output was rejected).
 */
export type GateStreamEvent<T> =
  | { readonly type: 'text'; readonly text: string; readonly attempt: number }
  /** Progressive mode: the JSON value parsed so far (a snapshot). */
  | { readonly type: 'partial'; readonly value: unknown; readonly attempt: number }
  /** Progressive mode: this attempt's output was rejected; a later attempt follows. */
  | { readonly type: 'discarded'; readonly attempt: number }
  /** The last event: the accepted, validated result. */
  | { readonly type: 'result'; readonly result: GateResult<T>; readonly attempt: number }
