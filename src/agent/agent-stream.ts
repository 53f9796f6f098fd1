import type { EventStream, GateStreamEvent } from '../gate/stream/index.ts'
import type { RunResult } from './run-result.ts'

/**
 * What `agent.stream` yields: the events of the run's gate streams (`text`, `partial`, `discarded`),
 * each `attempt` numbered across the whole run (so `result.attempts[attempt - 1]` is its record, and
 * a tool turn's attempts never share a number with the answer's), then the run's own `result`.
 */
export type AgentStreamEvent<T> =
  | Exclude<GateStreamEvent<T>, { readonly type: 'result' }>
  /** The last event: what `runDetailed` would have returned for this run. */
  | { readonly type: 'result'; readonly result: RunResult<T>; readonly attempt: number }

/**
 * A running `agent.stream`: iterate it with `for await`, or subscribe to `observable`; `result`
 * settles with the run's {@link RunResult} (tools, output fallback and all, as `runDetailed`) or
 * rejects with the `ReliabilityFailFastError`. Every consumer sees every event from the start.
 */
export interface AgentStream<T> extends EventStream<AgentStreamEvent<T>, RunResult<T>> {}
