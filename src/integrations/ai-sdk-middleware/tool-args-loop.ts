import type { ToolRetryOutcome } from '../../agent/function-call.ts'
import { logSink, type Logger } from '../../agent/logger.ts'
import { reportOutcome } from '../../agent/report-outcome.ts'
import { stableKey } from '../../agent/stable-key.ts'
import type { ToolGuard } from '../../agent/tools/guard.ts'
import { runGuards, type GuardRejection } from '../../agent/tools/run-guards.ts'
import type { EventHub } from '../../events/event-hub.ts'
import { emitValidationFailed } from '../../events/validation-failed-event.ts'
import type { Message } from '../../model/message.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import { formatFeedback, parseJsonSafe, validateToolArgs, type CompiledSchema, type ValidationFailure } from '../../validation/index.ts'

/** How the middleware treats tool-call arguments (the Agent's tool-argument loop, as options). */
export interface ToolArgsSettings {
  /** Retries per logical tool call, on argument validation failures only. */
  readonly maxToolRetries: number
  /** Guards run on the arguments of every attempt, retries included. */
  readonly toolGuards: readonly ToolGuard[]
  readonly retryHint: string | undefined
  readonly logger: Logger | undefined
  /** The `ext=` of the outcome log line. */
  readonly name: string
}

/** What the loop needs from the model call it runs in. */
export interface ToolArgsHost {
  readonly runId: string
  /** The provider and model whose answer holds the calls (the latest attempt's), for `validation_failed`. */
  readonly provider: string
  readonly model: string | undefined
  readonly events: EventHub
  /** Asks the model again on the call's prompt plus the ephemeral `tail`, through the gate. */
  askAgain(tail: readonly Message[]): Promise<ModelResponse>
  /** Validation failures of the call so far, for `validation_failed.cumulativeRetries`. */
  failures: number
}

/** Why the loop stopped without valid arguments for a call. */
export interface ToolArgsGiveUp {
  readonly call: ToolCall
  readonly outcome: Extract<ToolRetryOutcome, 'exhausted' | 'llm_gave_up' | 'no_retry' | 'fabricated_id_on_retry'>
  readonly retries: number
  readonly reason: string
  readonly failure: ValidationFailure | undefined
}

/** The settled calls (same ids, final arguments), or the first call the loop gave up on. */
export type ToolArgsVerdict = { readonly ok: true; readonly calls: readonly ToolCall[] } | { readonly ok: false; readonly giveUp: ToolArgsGiveUp }

/**
 * Settles the arguments of an answer's tool calls before the AI SDK sees them, as the Agent does:
 * each call with a known schema is validated and guarded on every attempt; only a validation failure
 * is retried, within `maxToolRetries`, by asking the same model for the same tool with an ephemeral
 * tail `[assistant(failing call), tool(is_error feedback)]`; the first call to that tool in the
 * answer is taken. `validation_failed` and `tool_retry_outcome` are emitted, with the log line.
 * Calls to tools without a schema here are left to the AI SDK.
 */
export async function settleToolArgs(
  calls: readonly ToolCall[],
  schemas: ReadonlyMap<string, CompiledSchema<unknown>>,
  settings: ToolArgsSettings,
  host: ToolArgsHost,
): Promise<ToolArgsVerdict> {
  const settled: ToolCall[] = []
  for (const call of calls) {
    const schema = schemas.get(call.name)
    if (schema === undefined) {
      settled.push(call)
      continue
    }
    const verdict = await settleOne(call, schema, settings, host)
    if (!verdict.ok) return verdict
    settled.push(verdict.call)
  }
  return { ok: true, calls: settled }
}

async function settleOne(
  original: ToolCall,
  schema: CompiledSchema<unknown>,
  settings: ToolArgsSettings,
  host: ToolArgsHost,
): Promise<{ ok: true; call: ToolCall } | { ok: false; giveUp: ToolArgsGiveUp }> {
  const rawGuards = settings.toolGuards.filter((g) => g.checksRawInput === true)
  const typedGuards = settings.toolGuards.filter((g) => g.checksRawInput !== true)
  const seen = new Set<string>()
  const sink = logSink(settings.logger)
  const report = (outcome: ToolRetryOutcome, retryCount: number) =>
    reportOutcome(host.events, sink, { runId: host.runId, tool: original.name, agent: settings.name, outcome, retryCount })
  const stop = (outcome: ToolArgsGiveUp['outcome'], retries: number, reason: string, failure?: ValidationFailure) => {
    report(outcome, retries)
    return { ok: false as const, giveUp: { call: original, outcome, retries, reason, failure } }
  }
  const blocked = (rejection: GuardRejection, retries: number) =>
    stop(
      retries === 0 ? 'no_retry' : 'fabricated_id_on_retry',
      retries,
      `guard ${rejection.guard} rejected the arguments of tool '${original.name}': ${rejection.reason}`,
    )

  let current = original
  for (let retry = 0; ; retry++) {
    const args = normalizeArgs(current.args)
    seen.add(stableKey(args))
    const ctx = { tool: original.name, callId: original.id, retry, agent: settings.name }
    const rawRejection = await runGuards(rawGuards, args, ctx)
    if (rawRejection !== undefined) return blocked(rawRejection, retry)
    let verdict = validateToolArgs(current.args, schema)
    if (verdict instanceof Promise) verdict = await verdict
    if (verdict.ok) {
      const rejection = await runGuards(typedGuards, verdict.value, ctx)
      if (rejection !== undefined) return blocked(rejection, retry)
      report(retry === 0 ? 'no_retry' : 'success', retry)
      return { ok: true, call: { id: original.id, name: original.name, args: current.args } }
    }
    validationFailed(host, verdict.failure, retry + 1)
    if (retry >= settings.maxToolRetries) {
      return stop(
        'exhausted',
        retry,
        `the arguments of tool '${original.name}' are still invalid after ${retry} ${retry === 1 ? 'retry' : 'retries'} (${verdict.failure.message})`,
        verdict.failure,
      )
    }
    const feedback = formatFeedback({
      target: 'tool',
      stage: 'tool-args',
      issues: verdict.failure.issues,
      toolName: original.name,
      ...(settings.retryHint !== undefined ? { retryHint: settings.retryHint } : {}),
    })
    const response = await host.askAgain([
      { role: 'assistant', content: '', toolCalls: [{ id: current.id, name: current.name, args: current.args }], ephemeral: true },
      { role: 'tool', content: feedback, toolCallId: current.id, toolName: current.name, isError: true, ephemeral: true },
    ])
    const next = response.toolCalls.find((c) => c.name === original.name)
    if (next === undefined)
      return stop(
        'llm_gave_up',
        retry + 1,
        `the model did not call tool '${original.name}' again after feedback on its arguments (${verdict.failure.message})`,
        verdict.failure,
      )
    if (seen.has(stableKey(normalizeArgs(next.args)))) report('redundant', retry + 1)
    current = next
  }
}

function validationFailed(host: ToolArgsHost, failure: ValidationFailure, attempt: number): void {
  host.failures++
  if (!host.events.has('validation_failed')) return
  emitValidationFailed(host.events, { runId: host.runId, tags: undefined, provider: host.provider, model: host.model }, failure, attempt, host.failures)
}

/** Arguments as an object when they are a JSON text, for guards and redundancy checks. */
function normalizeArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args
  const parsed = parseJsonSafe(args)
  return parsed.ok ? parsed.value : args
}
