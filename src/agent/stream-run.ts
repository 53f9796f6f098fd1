import { frozenMessage } from '../model/frozen-copy.ts'
import { eventTags } from '../events/event-tags.ts'
import { newRunId } from '../events/run-id.ts'
import { isReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import type { GateStream, GateStreamOptions } from '../gate/stream/index.ts'
import type { Message } from '../model/message.ts'
import { ZERO_USAGE } from '../model/usage.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import { shareDeadline } from '../gate/run/run-deadline.ts'
import type { AgentRunOptions } from './run-input.ts'
import { emitAgentRunEnd, ENDS_AFTER_COMMIT, type RunCommit, type RunIdentity } from './run-events.ts'
import { RunCostBudget } from './run-cost-budget.ts'

/**
 * One streamed agent run: a single model turn through `gate.stream`, bracketed by `agent_run_start`
 * and `agent_run_end` like `runDetailed`, with the agent's run id and turn 1 on every event of the
 * gate stream (so OpenTelemetry, traces and drift monitors see it as an agent run). `commit` gets
 * the accepted exchange when `result` settles; a failed stream commits nothing. The agent's
 * `costBudget` holds before every attempt. One turn: no tools are offered and no output fallback
 * answers (see the README).
 */
export function streamRun<T>(
  rt: AgentRuntime<T>,
  history: readonly Message[],
  user: Message,
  options: AgentRunOptions & Pick<GateStreamOptions, 'mode'>,
  commit: RunCommit,
): GateStream<T> {
  const runId = options.runId ?? newRunId()
  const events = rt.events
  if (events.has('agent_run_start')) events.emit('agent_run_start', { runId, ...eventTags(0, options.metadata), agent: rt.name })
  const request = { ...(rt.system !== undefined ? { system: rt.system } : {}), messages: history.concat(user) }
  const { deadline, ...given } = options
  const gateOptions: GateStreamOptions = { ...given, ...(deadline !== undefined ? { signal: deadline.signal } : {}), runId, turn: 1 }
  // The run's deadline (started by the session) covers the gate's stream: a stream it stops fails as `run-timeout`.
  if (deadline !== undefined) shareDeadline(gateOptions, deadline)
  const who = (): RunIdentity => ({ runId, tags: eventTags(1, options.metadata), agent: rt.name })
  // The agent's costBudget holds before every attempt of the stream, as for a turn of agent.run.
  const budget = rt.costBudget === undefined ? undefined : new RunCostBudget(rt.costBudget, events)
  if (budget !== undefined) rt.runBudgets?.set(request, (inCall, unpricedInCall) => budget.over(inCall, unpricedInCall, who))
  const s = rt.gate.stream(request, gateOptions)
  if (budget !== undefined) s.result.then(forget, forget)
  function forget(): void {
    rt.runBudgets?.delete(request)
  }
  const result = s.result.then(
    (r) => {
      const endsLater =
        commit(Object.freeze([frozenMessage(user), Object.freeze({ role: 'assistant' as const, content: r.response.content })])) === ENDS_AFTER_COMMIT
      if (!endsLater && events.has('agent_run_end')) emitAgentRunEnd(events, who(), { outcome: 'ok', kind: 'ok', turns: 1, outputFallback: undefined }, r)
      return r
    },
    (error: unknown) => {
      if (events.has('agent_run_end')) {
        const failed = isReliabilityFailFastError(error)
        const spent = failed ? error : { attempts: [], usage: ZERO_USAGE, costUsd: 0 }
        emitAgentRunEnd(events, who(), { outcome: 'fail-fast', kind: failed ? error.kind : 'unknown', turns: 1, outputFallback: undefined }, spent)
      }
      throw error
    },
  )
  result.catch(() => undefined)
  return { ...s, result }
}
