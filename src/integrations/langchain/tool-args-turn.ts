import { AIMessage } from '@langchain/core/messages'
import type { ToolArgsHost } from '../../agent/tool-args-retry.ts'
import type { EventTags } from '../../events/event-map.ts'
import { emitValidationFailed } from '../../events/validation-failed-event.ts'
import { ReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import type { Message } from '../../model/message.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { ToolChoice } from '../../model/tool-choice.ts'
import { ZERO_USAGE } from '../../model/usage.ts'
import type { CompiledSchema, ValidationFailure } from '../../validation/index.ts'
import { settleHostToolCall } from '../host/host-tool-call.ts'
import type { HostToolSettings } from '../host/host-tool-settings.ts'
import { toModelResponse } from './langchain-messages.ts'

/** What the argument loop of one model call asks for: the model again, on the turn's messages plus the ephemeral tail (through the turn's gate). */
export type AskModel = (messages: readonly Message[], toolChoice: ToolChoice | undefined) => Promise<AIMessage>

/** The turn's run: its id (on every event of the loop), the agent's signal (the turn's deadline joined) and whether that deadline fired. */
export interface TurnRun {
  readonly runId: string
  readonly signal?: AbortSignal | undefined
  readonly late?: (() => boolean) | undefined
}

/** The middleware's tool-argument settings: the agent's loop settings, the retry budget and the guards. */
export type LangChainToolArgs = HostToolSettings

/** One model turn's tool-argument loop: the turn's messages, its tools' schemas, the settings, how to ask the model again, and the turn's run. */
export interface ToolArgsTurn {
  /** The turn's messages, before the answer that made the calls. */
  readonly base: readonly Message[]
  /** The input schema of each tool that has one, by name. */
  readonly schemas: ReadonlyMap<string, CompiledSchema<unknown>>
  readonly settings: LangChainToolArgs
  readonly ask: AskModel
  readonly run: TurnRun
}

const NO_TAGS: EventTags = Object.freeze({})

/**
 * The agent's tool-argument loop ({@link ToolArgsRetry}) on one LangChain model call, before any
 * tool runs: each call whose tool has a schema is validated, and an invalid one is re-asked with
 * the ephemeral tail appended to the request's messages (never to the agent's state). The message
 * returned holds each call with its final arguments (the original call ids), so after a successful
 * retry the state holds only the accepted call, as on the Agent and MCP paths. A retry answered in
 * prose is the seed's `llm_gave_up`: that answer stands and is returned instead. A call still
 * invalid (`exhausted`, or another tool in the reply) is kept with its last arguments, for
 * `wrapToolCall` to answer with feedback, and so is a call a guard (`toolGuards`) rejected; the
 * typed stops (`toolGiveUpStops`) throw.
 */
export async function settleToolArgs(first: AIMessage, turn: ToolArgsTurn): Promise<AIMessage> {
  const { base, schemas, settings, ask, run } = turn
  const calls = first.tool_calls ?? []
  if (!calls.some((c) => schemas.has(c.name))) return first
  const replies = new WeakMap<ModelResponse, AIMessage>()
  const runId = run.runId
  const host: ToolArgsHost = {
    runId,
    tags: NO_TAGS,
    signal: run.signal,
    async askAgain(messages: readonly Message[], toolChoice?: ToolChoice): Promise<ModelResponse> {
      const reply = await ask(messages, toolChoice)
      const response = toModelResponse(reply)
      replies.set(response, reply)
      return response
    },
    validationFailed(failure: ValidationFailure, attempt: number): void {
      if (settings.events.has('validation_failed'))
        emitValidationFailed(settings.events, { runId, tags: NO_TAGS, provider: 'langchain', model: undefined, attempt, cumulativeRetries: attempt }, failure)
    },
  }
  const response = toModelResponse(first)
  const settled = []
  for (const [i, call] of calls.entries()) {
    const input = schemas.get(call.name)
    const model = response.toolCalls[i]
    if (input === undefined || model === undefined) {
      settled.push(call)
      continue
    }
    const done = await settleHostToolCall({ host, settings, call: model, input, base, late: run.late })
    if (done.status === 'valid') {
      settled.push({ ...call, args: done.args as Record<string, unknown> })
      continue
    }
    if (done.status === 'answered') return replies.get(done.response) ?? new AIMessage(done.response.content)
    if (done.giveUp.stops) throw stopped(done.giveUp.kind, done.giveUp.reason, runId, done.verdict.failure)
    // Still invalid or blocked by a guard: the last arguments tried, for wrapToolCall to answer with feedback.
    settled.push({ ...call, args: done.args as Record<string, unknown> })
  }
  return withToolCalls(first, settled)
}

/**
 * `message` with `calls` in place of its tool calls (same ids): in `tool_calls`, and in the
 * `tool_use` blocks of a content array (Anthropic's wire form); the provider's raw copy of the calls
 * (`additional_kwargs.tool_calls`) is left out, so no rejected arguments go back to the model.
 */
function withToolCalls(message: AIMessage, calls: NonNullable<AIMessage['tool_calls']>): AIMessage {
  const { tool_calls: _raw, ...kwargs } = (message.additional_kwargs ?? {}) as Record<string, unknown>
  const byId = new Map(calls.map((c) => [c.id, c.args]))
  const content = Array.isArray(message.content)
    ? message.content.map((block) => {
        const b = block as { type?: unknown; id?: unknown }
        return b.type === 'tool_use' && typeof b.id === 'string' && byId.has(b.id) ? { ...block, input: byId.get(b.id) } : block
      })
    : message.content
  return new AIMessage({
    content: content as AIMessage['content'],
    tool_calls: calls,
    additional_kwargs: kwargs,
    response_metadata: message.response_metadata,
    ...(message.id !== undefined ? { id: message.id } : {}),
    ...(message.usage_metadata !== undefined ? { usage_metadata: message.usage_metadata } : {}),
  })
}

function stopped(kind: ReliabilityFailFastError['kind'], reason: string, runId: string, failure: ValidationFailure): ReliabilityFailFastError {
  return new ReliabilityFailFastError({
    kind,
    reason,
    phase: 'post-decide',
    runId,
    attempts: [],
    usage: ZERO_USAGE,
    costUsd: 0,
    validationError: failure,
    cause: failure,
  })
}
