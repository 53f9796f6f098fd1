import type { GateRunOptions } from '../gate/gate-internals.ts'
import { shareDeadline } from '../gate/run/run-deadline.ts'
import type { AgentRunOptions } from './run-input.ts'

type Writable<O> = { -readonly [K in keyof O]: O[K] }

/**
 * The options of one gate call of an agent run: the call's own (`runId`, `turn`, and what differs
 * from the gate's defaults), completed with the run's: its signal (the deadline's, which joins the
 * caller's), its metadata, its durable port (which journals the call's attempts) and its deadline,
 * shared so that a call it stops fails as `run-timeout`. One object per gate call: a call in flight
 * keeps the turn it started with.
 */
export function gateCallOptions(call: Writable<GateRunOptions>, run: AgentRunOptions): GateRunOptions {
  const { deadline, signal, metadata, durableTools } = run
  if (deadline !== undefined) call.signal = deadline.signal
  else if (signal !== undefined) call.signal = signal
  if (metadata !== undefined) call.metadata = metadata
  if (durableTools !== undefined) call.durable = durableTools.port
  if (deadline !== undefined) shareDeadline(call, deadline)
  return call
}
