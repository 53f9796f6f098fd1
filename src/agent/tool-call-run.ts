import type { EventTags } from '../events/event-map.ts'
import type { Message } from '../model/message.ts'
import type { ReasoningBlock } from '../model/reasoning.ts'
import { errorName } from '../model/message-of.ts'
import { abortReason } from '../policies/deadline/abort-reason.ts'
import { raceAbort } from '../policies/deadline/race-abort.ts'
import type { ModelResponse } from '../model/response.ts'
import type { ToolCall } from '../model/tool-call.ts'
import {
  checkForbiddenKeys,
  DEFAULT_MAX_FEEDBACK_CHARS,
  fitToolTail,
  formatFeedback,
  parseJsonSafe,
  validateToolArgs,
  type ValidationFailure,
} from '../validation/index.ts'
import { guardFailure } from './tools/guard-failure.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import type { FunctionCall, ToolCallStatus, ToolRetryOutcome } from './function-call.ts'
import { reportOutcome } from './report-outcome.ts'
import { stableKey } from './stable-key.ts'
import { toolMessages, toolResultContent } from './tool-messages.ts'
import type { GuardContext, ToolGuard } from './tools/guard.ts'
import { runGuards, type GuardRejection } from './tools/run-guards.ts'
import type { AnyTool, ToolContext } from './tools/tool.ts'

/** What a logical tool call needs from the run it belongs to. */
export interface ToolCallHost {
  readonly runtime: AgentRuntime<unknown>
  /** The agent run this call belongs to, for its events. */
  readonly runId: string
  /** The run's turn and metadata, for its events. */
  readonly tags: EventTags
  readonly signal: AbortSignal | undefined
  /** One tool-argument retry: a gate call on `messages` (output validation off), budget-checked and billed to the run. */
  askAgain(messages: readonly Message[]): Promise<ModelResponse>
  /** Reports an argument validation failure (`attempt` is 1-indexed within the logical call). */
  validationFailed(failure: ValidationFailure, attempt: number): void
}

/** A logical tool call, settled: its `functionsCalled` entry, its tool result, and the call as persisted. */
export interface SettledToolCall {
  readonly entry: FunctionCall
  /** The `tool` message answering the call. */
  readonly result: Message
  /** The original call (same id) with its final arguments, for the persisted assistant turn. */
  readonly call: ToolCall
}

/**
 * Settles one logical tool call: the Imperal loop, generalised (DESIGN.md "Tool-call argument
 * retry"). Arguments are validated against the tool's schema and every guard runs, on the first
 * attempt and on every retry input. Only a validation failure is retried, within the call's budget,
 * by asking the same model for the same tool with an ephemeral tail `[assistant(failing call),
 * tool(is_error feedback)]` rebuilt from `base` each time; the failing call's assistant message
 * carries the reasoning blocks of the answer it came from (`reasoning`), which extended thinking
 * requires back. Everything else (unknown tool, a guard's rejection, a throwing `execute`) is
 * answered to the model as an error result at once.
 */
export function runToolCall(host: ToolCallHost, call: ToolCall, base: readonly Message[], reasoning?: readonly ReasoningBlock[]): Promise<SettledToolCall> {
  return new LogicalToolCall(host, call, base, reasoning).settle()
}

class LogicalToolCall {
  readonly #host: ToolCallHost
  readonly #original: ToolCall
  readonly #base: readonly Message[]
  readonly #tried: unknown[] = []
  readonly #seen = new Set<string>()
  #retry = 0
  #redundant = 0
  /** The reasoning of the answer the current call came from (ephemeral once it is a retry's). */
  #reasoning: readonly ReasoningBlock[] | undefined

  constructor(host: ToolCallHost, original: ToolCall, base: readonly Message[], reasoning: readonly ReasoningBlock[] | undefined) {
    this.#host = host
    this.#original = original
    this.#base = base
    this.#reasoning = reasoning
  }

  async settle(): Promise<SettledToolCall> {
    const rt = this.#host.runtime
    const events = rt.events
    if (events.has('tool_start')) {
      const { id, name, args } = this.#original
      events.emit('tool_start', { runId: this.#host.runId, ...this.#host.tags, agent: rt.name, tool: name, callId: id, args })
    }
    const tool = rt.tools.get(this.#original.name)
    if (tool === undefined) {
      this.#tried.push(normalizeArgs(this.#original.args))
      return this.#settle('unknown-tool', 'no_retry', toolMessages.unknownTool(this.#original.name, [...rt.tools.keys()]))
    }
    const budget = tool.maxRetries ?? rt.maxToolRetries
    const guards = [...rt.toolGuards, ...tool.guards] as readonly ToolGuard<unknown>[]
    const rawGuards = guards.filter((g) => g.checksRawInput === true)
    const typedGuards = guards.filter((g) => g.checksRawInput !== true)
    let current = this.#original
    for (;;) {
      const args = normalizeArgs(current.args)
      this.#tried.push(args)
      this.#seen.add(stableKey(args))
      const ctx: GuardContext = { tool: tool.name, callId: this.#original.id, retry: this.#retry, agent: rt.name }

      const rawRejection = await runGuards(rawGuards, args, ctx, this.#host.signal)
      if (rawRejection !== undefined) return this.#blocked(rawRejection, current.args)
      let verdict = validateToolArgs(current.args, tool.input)
      // An async schema is user code: it never holds the run past its signal.
      if (verdict instanceof Promise) verdict = await raceAbort(verdict, this.#host.signal)
      if (verdict.ok) {
        const rejection = await runGuards(typedGuards, verdict.value, ctx, this.#host.signal)
        if (rejection !== undefined) return this.#blocked(rejection, current.args)
        return this.#execute(tool, verdict.value)
      }

      this.#host.validationFailed(verdict.failure, this.#retry + 1)
      if (this.#retry >= budget) {
        return this.#settle('invalid-args', 'exhausted', toolMessages.invalidArgs(tool.name, verdict.failure, this.#retry, 'exhausted'))
      }
      const next = await this.#askAgain(tool, current, verdict.failure)
      if (next === undefined) {
        return this.#settle('invalid-args', 'llm_gave_up', toolMessages.invalidArgs(tool.name, verdict.failure, this.#retry, 'gave-up'))
      }
      current = next
    }
  }

  /** One retry: the base plus an ephemeral tail for the failing call only; the first call to the same tool wins. */
  async #askAgain(tool: AnyTool, failing: ToolCall, failure: ValidationFailure): Promise<ToolCall | undefined> {
    const rt = this.#host.runtime
    this.#retry++
    const prose = formatFeedback({
      target: 'tool',
      stage: 'tool-args',
      issues: failure.issues,
      toolName: tool.name,
      ...(rt.retryHint !== undefined ? { retryHint: rt.retryHint } : {}),
    })
    // The echoed call and the feedback together fit the gate's feedback bounds, whatever the model sent.
    const { feedback, echo: args } = fitToolTail(prose, failing.args, feedbackLimits(rt))
    const reasoning = this.#reasoning
    const tail: readonly Message[] = [
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: failing.id, name: failing.name, args }],
        ...(reasoning !== undefined ? { reasoning } : {}),
        ephemeral: true,
      },
      { role: 'tool', content: feedback, toolCallId: failing.id, toolName: failing.name, isError: true, ephemeral: true },
    ]
    const response = await this.#host.askAgain(this.#base.concat(tail))
    const next = response.toolCalls.find((c) => c.name === tool.name)
    if (next === undefined) return undefined
    this.#reasoning = response.reasoning
    if (this.#seen.has(stableKey(normalizeArgs(next.args)))) {
      this.#redundant++
      reportOutcome(rt.events, rt.logger, {
        runId: this.#host.runId,
        ...this.#host.tags,
        tool: tool.name,
        agent: rt.name,
        outcome: 'redundant',
        retryCount: this.#retry,
      })
    }
    return next
  }

  /**
   * A guard rejected the arguments: never retried (DESIGN.md, the Imperal loop), but reported as a
   * validation failure of the arguments, like a schema failure, before the call is settled.
   */
  #blocked(rejection: GuardRejection, args: unknown): SettledToolCall {
    this.#host.validationFailed(guardFailure(rejection, args), this.#retry + 1)
    // A guard rejecting a retry's input means the model "fixed" the call by inventing something.
    const outcome = this.#retry === 0 ? 'no_retry' : 'fabricated_id_on_retry'
    return this.#settle('guard-rejected', outcome, toolMessages.guardRejected(this.#original.name, rejection.guard, rejection.reason))
  }

  /**
   * Runs the tool under the run's signal: an aborted run settles the call as `aborted` at once, even
   * when `execute` ignores the signal and never returns (its late result is dropped).
   */
  async #execute(tool: AnyTool, value: unknown): Promise<SettledToolCall> {
    const outcome = this.#retry === 0 ? 'no_retry' : 'success'
    const rt = this.#host.runtime
    const signal = this.#host.signal
    if (signal?.aborted === true) return this.#settle('aborted', outcome, toolMessages.aborted(tool.name, abortReason(signal)))
    try {
      const result: unknown = await raceAbort(executeTool(tool, value, { signal, callId: this.#original.id, agent: rt.name, retryCount: this.#retry }), signal)
      return this.#settle('ok', outcome, toolResultContent(result), result)
    } catch (error) {
      if (isAborted(signal) || isAbortError(error)) return this.#settle('aborted', outcome, toolMessages.aborted(tool.name, error))
      return this.#settle('execute-failed', outcome, toolMessages.executeFailed(tool.name, error))
    }
  }

  #settle(status: ToolCallStatus, outcome: Exclude<ToolRetryOutcome, 'redundant'>, content: string, result?: unknown): SettledToolCall {
    const rt = this.#host.runtime
    const { id, name } = this.#original
    const args = this.#tried.at(-1)
    const ok = status === 'ok'
    reportOutcome(rt.events, rt.logger, { runId: this.#host.runId, ...this.#host.tags, tool: name, agent: rt.name, outcome, retryCount: this.#retry })
    const entry: FunctionCall = Object.freeze({
      id,
      name,
      args,
      status,
      result: ok ? result : undefined,
      error: ok ? undefined : content,
      retryCount: this.#retry,
      redundantRetries: this.#redundant,
      outcome,
      intercepted: status !== 'ok' && status !== 'execute-failed' && status !== 'aborted',
      argsTried: Object.freeze([...this.#tried]),
    })
    if (rt.events.has('tool_end')) {
      const error = entry.error
      rt.events.emit('tool_end', {
        runId: this.#host.runId,
        ...this.#host.tags,
        agent: rt.name,
        tool: name,
        callId: id,
        args,
        status,
        outcome,
        retryCount: this.#retry,
        result: entry.result,
        error,
      })
    }
    return {
      entry,
      result: { role: 'tool', content, toolCallId: id, toolName: name, ...(ok ? {} : { isError: true }) },
      call: { id, name, args },
    }
  }
}

/**
 * Arguments as an object when a provider left them as a JSON string; anything else as it is, except
 * an object holding a forbidden key (`__proto__`, ...), which is kept as its JSON text so that it
 * never reaches user code as an object (`functionsCalled`, guards).
 */
function normalizeArgs(args: unknown): unknown {
  if (typeof args !== 'string') return checkForbiddenKeys(args) === undefined ? args : safeJson(args)
  const parsed = parseJsonSafe(args)
  return parsed.ok ? parsed.value : args
}

// A function, not an inline check: the signal may have aborted since TypeScript last looked.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}

function isAbortError(error: unknown): boolean {
  const name = errorName(error)
  return name === 'AbortError' || name === 'TimeoutError'
}

/** `tool.execute` as a promise, a synchronous throw included. */
function executeTool(tool: AnyTool, value: unknown, ctx: ToolContext): Promise<unknown> {
  try {
    return Promise.resolve(tool.execute(value, ctx))
  } catch (error) {
    return Promise.reject(error)
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** The gate's feedback bounds, which the tool-argument tail honours too. */
function feedbackLimits(rt: AgentRuntime<unknown>): { maxChars: number; maxTokens: number | undefined } {
  const config = rt.gate.config
  return { maxChars: config.maxFeedbackChars ?? DEFAULT_MAX_FEEDBACK_CHARS, maxTokens: config.maxFeedbackTokens }
}
