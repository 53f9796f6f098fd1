import { issueProblem } from '../../validation/feedback/describe-issue.ts'
import type { ValidationIssue } from '../../validation/issue.ts'
import type { TraceRecord } from '../trace-record.ts'
import type { ViewAttempt, ViewFailure, ViewMessage, ViewRun, ViewTool } from './trace-model.ts'

// Records are read back from a file: their fields are checked where they matter, not typed.
// biome-ignore lint/suspicious/noExplicitAny: a record read back from a file is untyped JSON
type Rec = TraceRecord & Record<string, any>

/**
 * Parses a JSON Lines trace; lines that are not JSON objects with a `type` and a `runId` are skipped
 * (a trace cut short by a crash still opens).
 */
export function parseTrace(text: string): TraceRecord[] {
  const out: TraceRecord[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      const value = JSON.parse(line) as unknown
      if (typeof value === 'object' && value !== null && typeof (value as Rec).type === 'string' && typeof (value as Rec).runId === 'string')
        out.push(value as TraceRecord)
    } catch {
      // A partial last line: skip it.
    }
  }
  return out
}

/** Groups a trace's records into runs, each a timeline of attempts, tool calls and notes, in order. */
export function buildRuns(records: readonly TraceRecord[]): ViewRun[] {
  const runs = new Map<string, ViewRun>()
  const state = new Map<string, { attempt: ViewAttempt | undefined; tool: ViewTool | undefined; inAgent: boolean; gateOpen: boolean }>()
  const runOf = (r: Rec): ViewRun => {
    let run = runs.get(r.runId)
    if (run === undefined) {
      run = {
        runId: r.runId,
        kind: 'gate',
        name: undefined,
        startedAt: r.ts,
        endedAt: undefined,
        outcome: 'unfinished',
        failKind: undefined,
        reason: undefined,
        metadata: r.metadata,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        models: [],
        kinds: [],
        timeline: [],
      }
      runs.set(r.runId, run)
      state.set(r.runId, { attempt: undefined, tool: undefined, inAgent: false, gateOpen: false })
    }
    return run
  }
  for (const rec of records) {
    const r = rec as Rec
    const run = runOf(r)
    // runOf() above made the state of every run it returns.
    const st = state.get(r.runId) as NonNullable<ReturnType<typeof state.get>>
    const kind = (k: unknown) => {
      if (typeof k === 'string' && k !== 'ok' && !run.kinds.includes(k)) run.kinds.push(k)
    }
    switch (r.type) {
      case 'agent_run_start':
        run.kind = 'agent'
        run.name = r.agent
        st.inAgent = true
        break
      case 'run_start':
        st.gateOpen = true
        break
      case 'attempt_start': {
        const attempt: ViewAttempt = {
          item: 'attempt',
          turn: r.turn,
          attempt: r.attempt,
          provider: r.provider,
          model: r.model,
          errorKind: 'pending',
          latencyMs: undefined,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          rawOutput: undefined,
          toolCalls: [],
          finishReason: undefined,
          failures: [],
          repairs: [],
          decision: undefined,
          tail: undefined,
          feedback: undefined,
          failover: undefined,
        }
        st.attempt = attempt
        run.timeline.push(attempt)
        if (typeof r.model === 'string' && !run.models.includes(r.model)) run.models.push(r.model)
        break
      }
      case 'attempt_end': {
        const a = st.attempt
        if (a === undefined) break
        a.errorKind = r.errorKind
        a.latencyMs = r.latencyMs
        a.inputTokens = r.usage?.inputTokens ?? 0
        a.outputTokens = r.usage?.outputTokens ?? 0
        a.rawOutput = r.response?.content
        a.toolCalls = (r.response?.toolCalls ?? []).map((c: Rec) => ({ name: c.name, args: c.args }))
        a.finishReason = r.finishReason
        run.inputTokens += a.inputTokens
        run.outputTokens += a.outputTokens
        kind(r.errorKind)
        break
      }
      case 'cost_tick':
        if (st.attempt !== undefined) st.attempt.costUsd = r.attemptCostUsd
        run.costUsd += r.attemptCostUsd ?? 0
        break
      case 'repaired':
        if (st.attempt !== undefined) st.attempt.repairs = r.repairs ?? []
        break
      case 'validation_failed': {
        const failure: ViewFailure = {
          stage: r.stage,
          message: r.message,
          issues: (r.issues ?? []).map((i: Rec) => ({ path: i.path, message: issueWording(i) })),
        }
        // Argument failures are reported by the agent once its model call is over: they belong to the tool call.
        const target = st.gateOpen ? st.attempt : st.tool
        target?.failures.push(failure)
        if (st.gateOpen && st.attempt !== undefined && st.attempt.rawOutput === undefined) st.attempt.rawOutput = r.rawOutput
        break
      }
      case 'decision':
        if (r.phase === 'post-decide' && st.attempt !== undefined)
          st.attempt.decision = { decision: r.decision, kind: r.kind, label: r.label, matched: r.matched }
        else run.timeline.push({ item: 'note', type: 'pre-check', text: `PreCheck rule ${r.label ?? r.kind} decided ${r.decision}` })
        kind(r.kind)
        break
      case 'retry':
        if (st.attempt !== undefined) {
          st.attempt.tail = (r.tail ?? []).map((m: Rec): ViewMessage => ({ role: m.role, content: m.content }))
          st.attempt.feedback = r.feedback
          if (r.fromProvider !== r.toProvider) st.attempt.failover = `${r.fromProvider} → ${r.toProvider}`
        }
        break
      case 'run_end':
        st.gateOpen = false
        if (!st.inAgent) end(run, r)
        break
      case 'agent_run_end':
        end(run, r)
        break
      case 'fail_fast':
        run.reason = r.reason
        kind(r.kind)
        break
      case 'tool_start': {
        const t: ViewTool = {
          item: 'tool',
          turn: r.turn,
          tool: r.tool,
          callId: r.callId,
          args: r.args,
          status: undefined,
          outcome: undefined,
          retryCount: 0,
          error: undefined,
          failures: [],
        }
        st.tool = t
        run.timeline.push(t)
        break
      }
      case 'tool_end':
        if (st.tool !== undefined) Object.assign(st.tool, { args: r.args, status: r.status, outcome: r.outcome, retryCount: r.retryCount, error: r.error })
        if (r.status !== 'ok') kind(r.status)
        st.tool = undefined
        break
      case 'fallback':
      case 'recovered':
      case 'budget_exceeded':
      case 'output_fallback_triggered':
      case 'output_canned_used':
      case 'breaker_state':
      case 'stream_aborted':
      case 'drift':
        run.timeline.push({ item: 'note', type: r.type, text: noteText(r) })
        break
      default:
        break
    }
  }
  return [...runs.values()]
}

function end(run: ViewRun, r: Rec): void {
  run.endedAt = r.ts
  run.outcome = r.outcome === 'ok' ? 'ok' : 'fail-fast'
  if (r.outcome !== 'ok') run.failKind = r.kind
}

function noteText(r: Rec): string {
  switch (r.type) {
    case 'recovered':
      return `recovered on attempt ${r.attempt} after ${r.failedAttempts} failed attempt(s)`
    case 'fallback':
      return `the configured fallback answered (rule ${r.kind})`
    case 'budget_exceeded':
      return `budget of $${r.budgetUsd} exceeded ($${r.spentUsd} spent): ${r.action}`
    case 'breaker_state':
      return `circuit breaker of ${r.provider}: ${r.from} → ${r.to}`
    case 'drift':
      return `drift: ${r.signal} ${r.state} ${r.threshold} for ${r.provider}/${r.model ?? '?'} (${r.value})`
    default:
      return `${r.type}: ${r.reason ?? r.kind ?? ''}`
  }
}

/** An issue in the words the model was given (the feedback's), falling back to the validator's own message. */
function issueWording(issue: Rec): string {
  try {
    return issueProblem(issue as unknown as ValidationIssue)
  } catch {
    return String(issue['message'])
  }
}
