import { assertArray } from '../../model/argument-checks.ts'
import { isRecord } from '../../model/is-record.ts'
import type { TraceRecord } from '../trace-record.ts'
import { Fields } from './read-fields.ts'
import type { ViewAttempt, ViewRun, ViewTool } from './trace-model.ts'
import { failureOf, messagesOf, newAttempt, newRun, noteText } from './view-items.ts'

export { parseTrace, readTrace } from './parse-trace.ts'
export type { ParsedTrace, SkippedLine } from './parse-trace.ts'

/** What is open in a run while its records are read. */
interface RunState {
  attempt: ViewAttempt | undefined
  tool: ViewTool | undefined
  /** The attempt whose answer made the open tool call. */
  origin: ViewAttempt | undefined
  /** The argument retries of the open tool call, in order. */
  retries: ViewAttempt[]
  inAgent: boolean
  gateOpen: boolean
}

/**
 * Groups a trace's records into runs, each a timeline of attempts, tool calls and notes, in order.
 * Records are read back from a file, so nothing in them is trusted: a field of the wrong type reads
 * as absent and is listed as invalid on its attempt or tool call (or as a note), never a crash.
 * `lines` gives each record's line number for those notes (see {@link readTrace}).
 */
export function buildRuns(records: readonly TraceRecord[], lines?: readonly number[]): ViewRun[] {
  assertArray(records, 'buildRuns: records', 'an array of trace records')
  if (lines !== undefined) assertArray(lines, 'buildRuns: lines', 'an array of line numbers')
  const runs = new Map<string, ViewRun>()
  const states = new Map<string, RunState>()
  for (const [index, record] of records.entries()) {
    if (!isRecord(record) || typeof record.runId !== 'string' || typeof record.type !== 'string') continue
    const f = new Fields(record)
    let run = runs.get(record.runId)
    if (run === undefined) {
      run = newRun(record.runId, f.number('ts') ?? 0, metadataOf(f.raw('metadata')))
      runs.set(record.runId, run)
      states.set(record.runId, { attempt: undefined, tool: undefined, origin: undefined, retries: [], inAgent: false, gateOpen: false })
    }
    const st = states.get(record.runId) as RunState
    const touched = apply(record.type, f, run, st)
    if (f.problems.length > 0) {
      const where = `line ${lines?.[index] ?? index + 1} (${record.type.slice(0, 64)})`
      const found = f.problems.map((p) => `${where}: ${p}`)
      if (touched !== undefined) touched.invalid.push(...found)
      else for (const text of found) run.timeline.push({ item: 'note', type: 'invalid', text: `invalid field, read as absent: ${text}` })
    }
  }
  return [...runs.values()]
}

function metadataOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return isRecord(value) ? value : undefined
}

/** Applies one record to its run; returns the attempt or tool call it was about, if any. */
function apply(type: string, f: Fields, run: ViewRun, st: RunState): ViewAttempt | ViewTool | undefined {
  const kind = (k: string | undefined) => {
    if (k !== undefined && k !== 'ok' && !run.kinds.includes(k)) run.kinds.push(k)
  }
  const a = st.attempt
  switch (type) {
    case 'agent_run_start':
      run.kind = 'agent'
      run.name = f.text('agent')
      st.inAgent = true
      return undefined
    case 'run_start':
      st.gateOpen = true
      return undefined
    case 'attempt_start': {
      const attempt = newAttempt(f)
      // A model call made while a tool call is open is that call's argument retry.
      if (st.tool !== undefined) {
        st.retries.push(attempt)
        attempt.toolRetry = { tool: st.tool.tool, retry: st.retries.length, verdict: 'pending' }
      }
      st.attempt = attempt
      run.timeline.push(attempt)
      if (attempt.model !== undefined && !run.models.includes(attempt.model)) run.models.push(attempt.model)
      return attempt
    }
    case 'attempt_end': {
      if (a === undefined) return undefined
      const errorKind = f.text('errorKind')
      a.errorKind = errorKind ?? 'invalid'
      a.latencyMs = f.number('latencyMs')
      const usage = f.nested('usage')
      a.inputTokens = usage.number('inputTokens') ?? 0
      a.outputTokens = usage.number('outputTokens') ?? 0
      const response = f.nested('response')
      a.rawOutput = response.text('content')
      a.toolCalls = response.list('toolCalls').map((c) => ({ name: c.text('name') ?? '?', args: c.raw('args') }))
      a.finishReason = f.text('finishReason')
      run.inputTokens += a.inputTokens
      run.outputTokens += a.outputTokens
      kind(errorKind)
      return a
    }
    case 'cost_tick': {
      const cost = f.number('attemptCostUsd') ?? 0
      if (a !== undefined) a.costUsd = cost
      run.costUsd += cost
      if (f.boolean('unpriced') === true) markUnpriced(a, run)
      return a
    }
    case 'cost_unknown':
      markUnpriced(a, run)
      return a
    case 'repaired':
      if (a !== undefined) a.repairs = f.texts('repairs')
      return a
    case 'validation_failed': {
      const failure = failureOf(f)
      // Argument failures are reported by the agent once its model call is over: they belong to the tool call.
      if (st.gateOpen) {
        a?.failures.push(failure)
        if (a !== undefined && a.rawOutput === undefined) a.rawOutput = f.text('rawOutput')
        return a
      }
      const t = st.tool
      if (t === undefined) return undefined
      t.failures.push(failure)
      // The arguments of the latest retry failed again: that retry is drawn as invalid, with why.
      const retry = st.retries.at(-1)
      if (retry?.toolRetry !== undefined && retry.toolRetry.verdict === 'pending') {
        retry.toolRetry.verdict = 'invalid'
        retry.failures.push(failure)
        t.rejected.push({ args: retry.toolCalls.find((c) => c.name === t.tool)?.args, failure })
      } else {
        // The model's first call was rejected: the attempt that made it is drawn as rejected, with its issues.
        if (st.origin !== undefined && st.retries.length === 0) {
          st.origin.argsRejected = t.tool
          st.origin.failures.push(failure)
        }
        t.rejected.push({ args: t.args, failure })
      }
      return t
    }
    case 'decision':
      if (f.text('phase') === 'post-decide' && a !== undefined) {
        a.decision = { decision: f.text('decision') ?? '?', kind: f.text('kind') ?? '?', label: f.text('label'), matched: f.boolean('matched') === true }
      } else
        run.timeline.push({
          item: 'note',
          type: 'pre-check',
          text: `PreCheck rule ${f.text('label') ?? f.text('kind') ?? '?'} decided ${f.text('decision') ?? '?'}`,
        })
      kind(f.text('kind'))
      return a
    case 'retry':
      if (a !== undefined) {
        a.tail = messagesOf(f.list('tail'))
        a.feedback = f.text('feedback')
        const from = f.text('fromProvider')
        const to = f.text('toProvider')
        if (from !== to) a.failover = `${from ?? '?'} → ${to ?? '?'}`
      }
      return a
    case 'run_end':
      st.gateOpen = false
      if (!st.inAgent) end(run, f)
      return undefined
    case 'agent_run_end':
      end(run, f)
      return undefined
    case 'fail_fast':
      run.reason = f.text('reason')
      kind(f.text('kind'))
      return undefined
    case 'tool_start': {
      const t: ViewTool = {
        item: 'tool',
        turn: f.number('turn'),
        tool: f.text('tool') ?? '?',
        callId: f.text('callId') ?? '',
        args: f.raw('args'),
        status: undefined,
        outcome: undefined,
        retryCount: 0,
        error: undefined,
        failures: [],
        rejected: [],
        invalid: [],
      }
      st.tool = t
      st.origin = a
      st.retries = []
      run.timeline.push(t)
      return t
    }
    case 'tool_end': {
      const t = st.tool
      const status = f.text('status')
      if (t !== undefined)
        Object.assign(t, { args: f.raw('args'), status, outcome: f.text('outcome'), retryCount: f.number('retryCount') ?? 0, error: f.text('error') })
      for (const retry of st.retries) if (retry.toolRetry?.verdict === 'pending') retry.toolRetry.verdict = status === 'ok' ? 'valid' : 'invalid'
      if (status !== 'ok') kind(status)
      st.tool = undefined
      st.origin = undefined
      st.retries = []
      return t
    }
    case 'fallback':
    case 'recovered':
    case 'budget_exceeded':
    case 'output_fallback_triggered':
    case 'output_canned_used':
    case 'breaker_state':
    case 'stream_aborted':
    case 'drift':
    case 'record_error':
    case 'needs_model_answer':
      run.timeline.push({ item: 'note', type, text: noteText(type, f) })
      return undefined
    default:
      return undefined
  }
}

function markUnpriced(a: ViewAttempt | undefined, run: ViewRun): void {
  if (a === undefined) run.unpricedAttempts++
  else if (!a.unpriced) {
    a.unpriced = true
    run.unpricedAttempts++
  }
}

function end(run: ViewRun, f: Fields): void {
  run.endedAt = f.number('ts')
  const outcome = f.text('outcome')
  run.outcome = outcome === 'ok' ? 'ok' : 'fail-fast'
  if (outcome !== 'ok') run.failKind = f.text('kind') ?? '?'
}
