import { type FailFastKind, FailFastKinds } from '../model/fail-fast-kind.ts'
import { dataCopy } from '../model/data-copy.ts'
import { keepShape } from '../model/keep-shape.ts'
import { errorName } from '../model/message-of.ts'
import type { ToolCall } from '../model/tool-call.ts'
import { abortReason } from '../model/abort-reason.ts'
import { raceAbort } from '../model/race-abort.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import { type DurableTurn, executeTool, stopsDurableRun } from './durable-run-steps.ts'
import type { FunctionCall, ToolCallStatus, ToolRetryOutcome } from './function-call.ts'
import { type GuardedToolResult, guardToolResult, toolTrust } from './guard-tool-result.ts'
import { guardToolArgs } from './guard-tool-args.ts'
import type { CompiledSchema, ValidationFailure } from '../validation/index.ts'
import { reportOutcome } from './report-outcome.ts'
import { normalizeArgs, type RetriedCall, ToolArgsRetry, type ToolArgsHost, type ToolArgsSpec } from './tool-args-retry.ts'
import { toolGiveUp } from './tool-give-up.ts'
import { toolMessages, toolResultText } from './tool-messages.ts'
import type { ToolGuard } from './tools/guard.ts'
import type { AnyTool } from './tools/tool.ts'
import type { SettledToolCall } from './settled-tool-call.ts'
import { approvalOf, type ApprovalVerdict } from './approval/tool-approval.ts'
import type { ResumedApproval } from './approval/run-pause.ts'

/**
 * What a logical tool call needs from the run it belongs to: the argument loop's host (run id, tags,
 * signal, the retry call billed to the run, the failure report), and the agent's runtime.
 */
export interface ToolCallHost extends ToolArgsHost {
  readonly runtime: AgentRuntime<unknown>
  /** The run's fail-fast error of `kind` (reported as the run's `fail_fast`), for a call that stops the run; `failure` when it stops on the call's arguments. */
  fail(kind: FailFastKind, reason: string, failure?: ValidationFailure): Error
  /** Tools withheld for this turn by the no-progress ladder: their calls are answered, never run. */
  readonly withheld?: readonly string[] | undefined
  /** A durable run's tool steps and the current model turn: each `execute` is one step. */
  readonly durable?: DurableTurn | undefined
  /** A resumed run's decision on its paused call (see `approvalOf`). */
  readonly approval?: ResumedApproval | undefined
}

export type { SettledToolCall } from './settled-tool-call.ts'

/**
 * Settles one logical tool call: its arguments go through the argument loop ({@link ToolArgsRetry}:
 * schema and every guard on every attempt, retries on validation failures only, bounded ephemeral
 * tails carrying the answer's `reasoning`), then the tool runs on the valid arguments. Everything
 * else (unknown tool, a guard's rejection, arguments still invalid, a throwing `execute`) is
 * answered to the model as an error result (a result or an error bounded by the feedback budget; a
 * result `JSON.stringify` cannot write is written safely, and the call is done). A retry answered in
 * prose is `llm_gave_up`: the call gets its error result and the prose stands as the run's answer
 * (`answer`). With the agent's `toolGiveUpStops`, prose (`tool-call-abandoned`) and a retry
 * repeating the rejected arguments of the attempt before it (`schema-stuck-loop`) stop the run.
 */
export function runToolCall(host: ToolCallHost, at: RetriedCall): Promise<SettledToolCall> {
  return new LogicalToolCall(host, at).settle()
}

class LogicalToolCall {
  readonly #host: ToolCallHost
  /** The model's call, the turn's messages before its answer, and that answer's reasoning. */
  readonly #at: RetriedCall
  /** The argument loop; none for an unknown tool. */
  #args: ToolArgsRetry | undefined
  /** The arguments recorded and persisted in place of the last ones tried, when a content guard redacted or refused them. */
  #finalArgs: { readonly value: unknown } | undefined
  /** The durable run's journal answered the call (it ran in an earlier process): its end is reported `replayed`. */
  #replayed = false
  /** The call was settled (its tool_end reported). */
  #ended = false
  /** A guard refused the first arguments: as in the seed, whose pre-guards refuse before its retry loop, no outcome is reported. */
  #unreported = false

  constructor(host: ToolCallHost, at: RetriedCall) {
    this.#host = host
    this.#at = at
  }

  async settle(): Promise<SettledToolCall> {
    const rt = this.#host.runtime
    const events = rt.events
    if (events.has('tool_start')) {
      const { id, name, args } = this.#at.call
      // The arguments as functionsCalled holds them: a forbidden key (`__proto__`) reaches a listener as JSON text, never as an object.
      events.emit('tool_start', { runId: this.#host.runId, ...this.#host.tags, agent: rt.name, tool: name, callId: id, args: normalizeArgs(args) })
    }
    try {
      return await this.#run()
    } catch (error) {
      // A guard or schema of the argument loop ended by the run's abort or deadline: the call ends
      // `aborted`, its tool_end reported as every started call's is (a span never stays open).
      if (this.#ended || !isAborted(this.#host.signal)) throw error
      return this.#settle('aborted', 'no_retry', toolMessages.aborted(this.#at.call.name, error, rt.feedbackLimits.maxChars))
    }
  }

  async #run(): Promise<SettledToolCall> {
    const rt = this.#host.runtime
    const tool = rt.tools.get(this.#at.call.name)
    if (tool === undefined) {
      return this.#settle('unknown-tool', 'no_retry', toolMessages.unknownTool(this.#at.call.name, [...rt.tools.keys()]))
    }
    if (this.#host.withheld?.includes(tool.name) === true) return this.#settle('withheld', 'no_retry', toolMessages.withheld(tool.name))
    const spec: ToolArgsSpec = {
      name: tool.name,
      input: tool.input,
      guards: [...rt.toolGuards, ...tool.guards] as readonly ToolGuard<unknown>[],
      maxRetries: tool.maxRetries ?? rt.maxToolRetries,
    }
    const args = new ToolArgsRetry(this.#host, rt, spec, this.#at)
    this.#args = args
    const verdict = await args.settle()
    switch (verdict.status) {
      case 'valid':
        return this.#guardedExecute(tool, verdict.value, verdict.outcome)
      case 'guard-rejected':
        this.#unreported = verdict.outcome === 'no_retry'
        return this.#settle('guard-rejected', verdict.outcome, toolMessages.guardRejected(tool.name, verdict.rejection.guard, verdict.rejection.reason))
      case 'answered': {
        const settled = this.#settle('invalid-args', verdict.outcome, toolMessages.invalidArgs(tool.name, verdict.failure, args.retry, 'gave-up'))
        return { ...settled, answer: verdict.response }
      }
      default: {
        const why = verdict.outcome === 'exhausted' ? 'exhausted' : 'gave-up'
        const settled = this.#settle('invalid-args', verdict.outcome, toolMessages.invalidArgs(tool.name, verdict.failure, args.retry, why))
        const giveUp = toolGiveUp(tool.name, verdict, args.retry)
        if (giveUp.stops) throw this.#host.fail(giveUp.kind, giveUp.reason, verdict.failure)
        return settled
      }
    }
  }

  /**
   * The `tool-args` content guards, then the tool: a redaction that still passes the schema runs
   * the tool on the redacted arguments (and records them); a block, a re-ask, or a redaction the
   * schema refuses answers the model with a `BLOCKED` result, never running the tool.
   */
  async #guardedExecute(tool: AnyTool, value: unknown, outcome: 'no_retry' | 'success'): Promise<SettledToolCall> {
    const rt = this.#host.runtime
    if (!rt.contentGuards.some((g) => g.surfaces.includes('tool-args'))) return this.#execute(tool, value, outcome)
    const { runId, tags, signal } = this.#host
    const guarding = {
      guards: rt.contentGuards,
      tool: toolTrust(tool),
      input: tool.input as CompiledSchema<unknown>,
      events: rt.events,
      runId,
      tags,
      host: 'agent' as const,
      signal,
    }
    const guarded = await guardToolArgs(value, guarding)
    if (guarded.action === 'escalate') {
      // Settled before the run fails, as a typed stop's call is: its tool_end is reported.
      this.#settle('guard-rejected', outcome, toolMessages.guardRejected(tool.name, guarded.guard, guarded.reason))
      throw this.#host.fail(FailFastKinds.GuardEscalated, `guard '${guarded.guard}' escalated the arguments of tool '${tool.name}': ${guarded.reason}`)
    }
    if (guarded.action === 'refuse') {
      // What a guard refused is not persisted: the call keeps its redacted arguments, or none.
      this.#finalArgs = { value: guarded.redactedArgs ?? {} }
      return this.#settle('guard-rejected', outcome, toolMessages.guardRejected(tool.name, guarded.guard, guarded.reason))
    }
    if (guarded.redacted) this.#finalArgs = { value: guarded.value }
    return this.#execute(tool, guarded.value, outcome)
  }

  /**
   * Runs the tool under the run's signal: an aborted run settles the call as `aborted` at once, even
   * when `execute` ignores the signal and never returns (its late result is dropped).
   */
  async #execute(tool: AnyTool, value: unknown, outcome: 'no_retry' | 'success'): Promise<SettledToolCall> {
    const rt = this.#host.runtime
    const signal = this.#host.signal
    const max = rt.feedbackLimits.maxChars
    if (signal?.aborted === true) return this.#settle('aborted', outcome, toolMessages.aborted(tool.name, abortReason(signal), max))
    const retryCount = this.#args?.retry ?? 0
    let key: string | undefined
    if (tool.needsApproval !== undefined || this.#host.approval !== undefined) {
      let approval: ApprovalVerdict
      try {
        approval = await approvalOf(this.#host, tool, value, this.#at.key ?? this.#at.call.id)
      } catch (error) {
        if (stopsDurableRun(error)) throw this.#host.fail('durable-journal', error.message)
        if (isAborted(signal)) return this.#settle('aborted', outcome, toolMessages.aborted(tool.name, error, max))
        throw error // the run pauses (RunPause), or a failure of the engine's
      }
      if (!approval.run) return this.#settle(approval.status, outcome, approval.message)
      key = approval.idempotencyKey
    }
    const ctx = { signal, callId: this.#at.call.id, agent: rt.name, retryCount, ...(key === undefined ? {} : { idempotencyKey: key }) }
    // The tool gets arguments of its own: what it does to them never rewrites the recorded call
    // (functionsCalled, the history), and an event listener that froze them changes nothing for it.
    const args = ownArgs(value, this.#finalArgs === undefined ? this.#args?.tried.at(-1) : this.#finalArgs.value)
    let result: unknown
    try {
      result = await raceAbort(executeTool(this.#host.durable, tool, args, { key: this.#at.key ?? this.#at.call.id, ctx }), signal)
      this.#replayed = this.#host.durable?.tools.replayed(ctx) === true
    } catch (error) {
      this.#replayed = this.#host.durable?.tools.replayed(ctx) === true
      if (stopsDurableRun(error)) throw this.#host.fail('durable-journal', error.message)
      if (isAborted(signal) || isAbortError(error)) return this.#settle('aborted', outcome, toolMessages.aborted(tool.name, error, max))
      return this.#settle('execute-failed', outcome, toolMessages.executeFailed(tool.name, error, max))
    }
    if (rt.contentGuards.length === 0) return this.#settle('ok', outcome, toolResultText(result, max), { result })
    const run = { events: rt.events, runId: this.#host.runId, tags: this.#host.tags, host: 'agent' as const, signal, maxChars: max }
    const guarded = await guardToolResult(rt.contentGuards, toolTrust(tool), result, run)
    if (guarded.action === 'escalate') {
      const reason = `guard '${guarded.guard}' escalated the result of tool '${tool.name}': ${guarded.reason}`
      this.#settle('result-withheld', outcome, reason)
      throw this.#host.fail(FailFastKinds.GuardEscalated, reason)
    }
    if (guarded.action === 'withhold') return this.#settle('result-withheld', outcome, guarded.notice, { result: undefined, guarded })
    return this.#settle('ok', outcome, guarded.content, { result: guarded.result, guarded })
  }

  /** The call settled with `status`: `content` is what the model reads; `ran` what the tool returned (recorded when `ok`) and the result guards' verdict. */
  #settle(status: ToolCallStatus, outcome: Exclude<ToolRetryOutcome, 'redundant'>, content: string, ran?: ToolRan): SettledToolCall {
    this.#ended = true
    const rt = this.#host.runtime
    const { id, name } = this.#at.call
    const loop = this.#args
    const tried = loop === undefined ? [normalizeArgs(this.#at.call.args)] : loop.tried
    const retryCount = loop?.retry ?? 0
    const args = this.#finalArgs === undefined ? tried.at(-1) : this.#finalArgs.value
    const ok = status === 'ok'
    const tags = this.#replayed ? { ...this.#host.tags, replayed: true as const } : this.#host.tags
    if (!this.#unreported)
      reportOutcome(rt.events, rt.logger, { runId: this.#host.runId, ...tags, tool: name, agent: rt.name, outcome, retryCount: loop?.answered ?? 0 })
    const entry: FunctionCall = Object.freeze({
      id,
      name,
      args,
      status,
      result: ok ? ran?.result : undefined,
      error: ok ? undefined : content,
      retryCount,
      redundantRetries: loop?.redundant ?? 0,
      outcome,
      intercepted: status !== 'ok' && status !== 'execute-failed' && status !== 'aborted' && status !== 'result-withheld',
      // The arguments a tool-args guard redacted or blocked are recorded as it left them, here too: never kept, nor stored with a paused run.
      argsTried: Object.freeze(this.#finalArgs === undefined ? [...tried] : [...tried.slice(0, -1), args]),
      ...guardVerdictOf(ran?.guarded),
    })
    if (rt.events.has('tool_end')) {
      const error = entry.error
      rt.events.emit('tool_end', {
        runId: this.#host.runId,
        ...tags,
        agent: rt.name,
        tool: name,
        callId: id,
        args,
        status,
        outcome,
        retryCount,
        result: entry.result,
        error,
      })
    }
    return {
      entry,
      result: { role: 'tool', content, toolCallId: id, toolName: name, ...(ok || status === 'result-withheld' ? {} : { isError: true }) },
      call: { id, name, args },
    }
  }
}

/** What a tool that ran returned, and what the result guards made of it (when they ran). */
interface ToolRan {
  readonly result: unknown
  readonly guarded?: GuardedToolResult
}

/** The entry's `guardVerdict`: present when a guard redacted or withheld the result. */
function guardVerdictOf(guarded: GuardedToolResult | undefined): Pick<FunctionCall, 'guardVerdict'> {
  if (guarded?.action === 'withhold')
    return { guardVerdict: Object.freeze({ action: 'withhold', guards: Object.freeze([guarded.guard]), reason: guarded.reason }) }
  if (guarded?.action === 'pass' && guarded.redactedBy !== undefined) return { guardVerdict: Object.freeze({ action: 'redact', guards: guarded.redactedBy }) }
  return {}
}

/**
 * `value` as the tool receives it: a copy when it is the very object recorded for the call (a schema
 * that validates in place hands back the model's own arguments), else `value` itself (a schema's
 * output of its own). The model's arguments are JSON data; a value that cannot be copied is handed on.
 */
function ownArgs(value: unknown, recorded: unknown): unknown {
  return value === recorded ? dataCopy(value) : value
}

// A function, not an inline check: the signal may have aborted since TypeScript last looked.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}

function isAbortError(error: unknown): boolean {
  const name = errorName(error)
  return name === 'AbortError' || name === 'TimeoutError'
}

// A call that holds nothing, kept for its hidden class (see keepShape).
keepShape(new LogicalToolCall(Object.freeze({}) as ToolCallHost, { call: Object.freeze({}) as ToolCall, base: [], reasoning: undefined }))
