import type { AgentRuntime } from './agent-runtime.ts'
import type { Message } from '../model/message.ts'
import type { RunCommit } from './run-events.ts'
import type { AgentRunOptions, RunOptions } from './run-input.ts'
import type { RunProjection } from './run-result.ts'

/** A run's options as `#begin` takes them: a resumed run's carry where it goes on from. */
export type Begin = RunOptions & Pick<AgentRunOptions, 'resume'>

/** What one run of a session starts from: the one input of an `AgentRun`, which reads it for the whole run. */
export interface SessionRun<T, R> {
  /** The agent's runtime (for a stream, one whose gate streams: see `StreamedTurns`). */
  readonly runtime: AgentRuntime<T>
  /** The history the run's requests carry (windowed for a stored conversation). */
  readonly history: readonly Message[]
  readonly user: Message
  readonly options: AgentRunOptions
  /** Persists the accepted exchange (the session's history), before the result is handed out. */
  readonly committer: RunCommit
  /** What the caller wants of the finished run. */
  readonly project: RunProjection<T, R>
}
