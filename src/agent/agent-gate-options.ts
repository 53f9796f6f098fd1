import type { GateRunOptions } from '../gate/gate-internals.ts'
import type { RunOptions } from './run-input.ts'

/** What every gate call of an agent run starts from (each call gets its own copy, with its turn). */
export type AgentGateOptions = { -readonly [K in keyof GateRunOptions]: GateRunOptions[K] }

/** What every gate call of an agent run is given: the run's id, its signal and metadata, the turn. */
export function agentGateOptions(runId: string, options: RunOptions): AgentGateOptions {
  const gateOptions: AgentGateOptions = { runId, turn: 0 }
  if (options.signal !== undefined) gateOptions.signal = options.signal
  if (options.metadata !== undefined) gateOptions.metadata = options.metadata
  return gateOptions
}
