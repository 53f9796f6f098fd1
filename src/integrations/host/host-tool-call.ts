import { reportOutcome } from '../../agent/report-outcome.ts'
import { ToolArgsRetry, type ToolArgsHost } from '../../agent/tool-args-retry.ts'
import { type ToolGiveUp, toolGiveUp, type UnsettledVerdict } from '../../agent/tool-give-up.ts'
import type { Message } from '../../model/message.ts'
import type { ReasoningBlock } from '../../model/reasoning.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import type { HostToolSettings } from './host-tool-settings.ts'

/** One logical tool call of a host's model answer, with what the argument loop needs to settle it. */
export interface HostToolCallState {
  /** The host's run (its id, signal and events) and how it asks the model again. */
  readonly host: ToolArgsHost
  readonly settings: HostToolSettings
  readonly call: ToolCall
  /** The tool's input schema. */
  readonly input: CompiledSchema<unknown>
  /** The turn's messages, before the answer that made the call. */
  readonly base: readonly Message[]
  readonly reasoning?: readonly ReasoningBlock[] | undefined
}

/** How a host's logical tool call settled, in the one mapping every host reads. */
export type HostToolCall =
  /** Valid and accepted by every guard: the call's final arguments. */
  | { readonly status: 'valid'; readonly args: unknown }
  /** A retry was answered in prose (`llm_gave_up`): the seed lets that answer stand in place of the tool calls. */
  | { readonly status: 'answered'; readonly response: ModelResponse }
  /**
   * Not settled (guard rejected, exhausted, another tool, or a typed stop): the give-up the agent
   * would report ({@link toolGiveUp}), the loop's verdict, and the last arguments tried.
   */
  | { readonly status: 'unsettled'; readonly giveUp: ToolGiveUp; readonly verdict: UnsettledVerdict; readonly args: unknown }

/**
 * Settles one logical tool call of a host middleware (AI SDK, LangChain) with the Agent's own
 * argument loop ({@link ToolArgsRetry}: schema, guards on every attempt, retries with the ephemeral
 * tail, forced re-ask and typed stop as configured), reports its outcome (`tool_retry_outcome` and
 * the log line) and maps the verdict with the agent's one mapping ({@link toolGiveUp}). What a host
 * does with an unsettled call is its own: the AI SDK throws the give-up, LangChain answers the call.
 */
export async function settleHostToolCall(state: HostToolCallState): Promise<HostToolCall> {
  const { host, settings, call } = state
  const spec = { name: call.name, input: state.input, guards: settings.toolGuards, maxRetries: settings.maxToolRetries }
  const loop = new ToolArgsRetry(host, settings, spec, state)
  const verdict = await loop.settle()
  // As in the seed, a call its guards refused before any retry (a fabricated ID in the first call) reports no outcome.
  if (!(verdict.status === 'guard-rejected' && verdict.outcome === 'no_retry')) {
    reportOutcome(settings.events, settings.logger, {
      runId: host.runId,
      ...host.tags,
      tool: call.name,
      agent: settings.name,
      outcome: verdict.outcome,
      retryCount: loop.answered,
    })
  }
  if (verdict.status === 'valid') return { status: 'valid', args: verdict.call.args }
  if (verdict.status === 'answered') return { status: 'answered', response: verdict.response }
  return { status: 'unsettled', giveUp: toolGiveUp(call.name, verdict, loop.retry), verdict, args: loop.tried.at(-1) }
}
