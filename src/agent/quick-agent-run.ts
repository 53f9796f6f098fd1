import { eventTags } from '../events/event-tags.ts'
import { newRunId } from '../events/run-id.ts'
import type { GateResult } from '../gate/gate-result.ts'
import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import { agentGateOptions } from './agent-gate-options.ts'
import { AgentRun } from './agent-run.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import type { RunOptions } from './run-input.ts'
import { runResultOf, type RunResult } from './run-result.ts'
import { emitAgentRunEnd } from './run-events.ts'

// No tool turn, no function call: shared by every quick run (read-only).
const NONE: readonly never[] = Object.freeze([])

/**
 * Whether a run may take {@link quickAgentRun}: the agent offers no tools and has no cost budget and
 * no output fallback, and nobody listens to `agent_run_start` or `agent_run_end`.
 */
export function quickAgentRunFits(rt: AgentRuntime<unknown>): boolean {
  return (
    rt.toolSpecs.length === 0 &&
    rt.costBudget === undefined &&
    rt.outputFallback === undefined &&
    !rt.events.has('agent_run_start') &&
    !rt.events.has('agent_run_end')
  )
}

/**
 * An agent run that answers in one model turn, without the run state of the ReAct loop: the gate
 * call of the first turn, then the result, the commit and the projection `AgentRun` would give. A
 * gate failure is the run's failure as it is (one gate call: nothing to widen); an answer that calls
 * tools is handed over to an `AgentRun`, which goes on from that turn.
 */
export function quickAgentRun<T, R>(
  rt: AgentRuntime<T>,
  history: readonly Message[],
  user: Message,
  options: RunOptions,
  commit: (exchange: readonly Message[]) => void,
  project: (result: RunResult<T>) => R,
): Promise<R> {
  const runId = options.runId ?? newRunId()
  const gateOptions = agentGateOptions(runId, options)
  gateOptions.turn = 1
  const messages = history.length === 0 ? [user] : history.concat(user)
  const request: ModelRequest = rt.system === undefined ? { messages } : { messages, system: rt.system }
  return rt.runGate(request, gateOptions, (result): R | Promise<R> => {
    if (result.response.toolCalls.length > 0) {
      return new AgentRun(rt, history, user, { ...options, runId }, commit, project).afterFirstTurn(result, messages)
    }
    return finished(rt, user, result, runId, options, commit, project)
  })
}

function finished<T, R>(
  rt: AgentRuntime<T>,
  user: Message,
  result: GateResult<T>,
  runId: string,
  options: RunOptions,
  commit: (exchange: readonly Message[]) => void,
  project: (result: RunResult<T>) => R,
): R {
  const run = runResultOf(runId, user, NONE, result.response, result.value, NONE, result, 1, result.provider, result.fromFallback, undefined, result.warnings)
  commit(run.exchange)
  // Attached while the turn ran: heard as the full run would have it.
  if (rt.events.has('agent_run_end')) {
    const who = { runId, tags: eventTags(1, options.metadata), agent: rt.name }
    emitAgentRunEnd(rt.events, who, { outcome: 'ok', kind: 'ok', turns: 1, outputFallback: undefined }, run)
  }
  return project(run)
}
