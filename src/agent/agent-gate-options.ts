import type { GateRunOptions } from '../gate/gate-internals.ts'
import type { RunOptions } from './run-input.ts'

/** The options of an agent run's gate calls: one object per run, its `turn` updated in place. */
export type AgentGateOptions = { -readonly [K in keyof GateRunOptions]: GateRunOptions[K] }

/** What every gate call of an agent run is given: the run's id, its signal and metadata, the turn. */
export function agentGateOptions(runId: string, options: RunOptions): AgentGateOptions {
  const gateOptions: AgentGateOptions = { runId, turn: 0 }
  if (options.signal !== undefined) gateOptions.signal = options.signal
  if (options.metadata !== undefined) gateOptions.metadata = options.metadata
  return gateOptions
}
