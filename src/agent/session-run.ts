import type { AgentRuntime } from './agent-runtime.ts'
import type { Message } from '../model/message.ts'
import type { AgentRunOptions, RunOptions } from './run-input.ts'
import type { RunResult } from './run-result.ts'

/** A run's options as `#begin` takes them: a resumed run's carry where it goes on from. */
export type Begin = RunOptions & Pick<AgentRunOptions, 'resume'>

/** What one run of a session starts from. */
export interface SessionRun<T, R> {
  /** The agent's runtime (for a stream, one whose gate streams: see `StreamedTurns`). */
  readonly runtime: AgentRuntime<T>
  /** The history the run's requests carry (windowed for a stored conversation). */
  readonly history: readonly Message[]
  readonly user: Message
  readonly options: AgentRunOptions
  /** What the caller wants of the result. */
  readonly project: (result: RunResult<T>) => R
}
