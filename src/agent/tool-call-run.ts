import type { Message } from '../model/message.ts'
import type { ModelResponse } from '../model/response.ts'
import type { ToolCall } from '../model/tool-call.ts'
import { checkForbiddenKeys, DEFAULT_MAX_FEEDBACK_CHARS, fitToolTail, formatFeedback, parseJsonSafe, validateToolArgs, type ValidationFailure } from '../validation/index.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import type { FunctionCall, ToolCallStatus, ToolRetryOutcome } from './function-call.ts'
import { reportOutcome } from './report-outcome.ts'
import { stableKey } from './stable-key.ts'
import { toolMessages, toolResultContent } from './tool-messages.ts'
import type { GuardContext, ToolGuard } from './tools/guard.ts'
import { runGuards, type GuardRejection } from './tools/run-guards.ts'
import type { AnyTool } from './tools/tool.ts'

/** What a logical tool call needs from the run it belongs to. */
export interface ToolCallHost {
  readonly runtime: AgentRuntime<unknown>
  /** The agent run this call belongs to, for its events. */
  readonly runId: string
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
 * tool(is_error feedback)]` rebuilt from `base` each time. Everything else (unknown tool, a guard's
 * rejection, a throwing `execute`) is answered to the model as an error result at once.
 */
export function runToolCall(host: ToolCallHost, call: ToolCall, base: readonly Message[]): Promise<SettledToolCall> {
  return new LogicalToolCall(host, call, base).settle()
}

class LogicalToolCall {
  readonly #host: ToolCallHost
  readonly #original: ToolCall
  readonly #base: readonly Message[]
  readonly #tried: unknown[] = []
  readonly #seen = new Set<string>()
  #retry = 0
  #redundant = 0

  constructor(host: ToolCallHost, original: ToolCall, base: readonly Message[]) {
    this.#host = host
    this.#original = original
    this.#base = base
  }

  async settle(): Promise<SettledToolCall> {
    const rt = this.#host.runtime
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

      const rawRejection = await runGuards(rawGuards, args, ctx)
      if (rawRejection !== undefined) return this.#blocked(rawRejection)
      let verdict = validateToolArgs(current.args, tool.input)
      if (verdict instanceof Promise) verdict = await verdict
      if (verdict.ok) {
        const rejection = await runGuards(typedGuards, verdict.value, ctx)
        if (rejection !== undefined) return this.#blocked(rejection)
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
    const tail: readonly Message[] = [
      { role: 'assistant', content: '', toolCalls: [{ id: failing.id, name: failing.name, args }], ephemeral: true },
      { role: 'tool', content: feedback, toolCallId: failing.id, toolName: failing.name, isError: true, ephemeral: true },
    ]
    const response = await this.#host.askAgain(this.#base.concat(tail))
    const next = response.toolCalls.find((c) => c.name === tool.name)
    if (next === undefined) return undefined
    if (this.#seen.has(stableKey(normalizeArgs(next.args)))) {
      this.#redundant++
      reportOutcome(rt.events, rt.logger, { runId: this.#host.runId, tool: tool.name, agent: rt.name, outcome: 'redundant', retryCount: this.#retry })
    }
    return next
  }

  #blocked(rejection: GuardRejection): SettledToolCall {
    // A guard rejecting a retry's input means the model "fixed" the call by inventing something.
    const outcome = this.#retry === 0 ? 'no_retry' : 'fabricated_id_on_retry'
    return this.#settle('guard-rejected', outcome, toolMessages.guardRejected(this.#original.name, rejection.guard, rejection.reason))
  }

  async #execute(tool: AnyTool, value: unknown): Promise<SettledToolCall> {
    const outcome = this.#retry === 0 ? 'no_retry' : 'success'
    const rt = this.#host.runtime
    try {
      const result: unknown = await tool.execute(value, { signal: this.#host.signal, callId: this.#original.id, agent: rt.name, retryCount: this.#retry })
      return this.#settle('ok', outcome, toolResultContent(result), result)
    } catch (error) {
      if (isAbortError(error)) return this.#settle('aborted', outcome, toolMessages.aborted(tool.name, error))
      return this.#settle('execute-failed', outcome, toolMessages.executeFailed(tool.name, error))
    }
  }

  #settle(status: ToolCallStatus, outcome: Exclude<ToolRetryOutcome, 'redundant'>, content: string, result?: unknown): SettledToolCall {
    const rt = this.#host.runtime
    const { id, name } = this.#original
    const args = this.#tried.at(-1)
    const ok = status === 'ok'
    reportOutcome(rt.events, rt.logger, { runId: this.#host.runId, tool: name, agent: rt.name, outcome, retryCount: this.#retry })
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

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')
}
