import type { AIMessage, BaseMessage } from '@langchain/core/messages'
import { RunLedger } from '../../agent/run-ledger.ts'
import type { EventHub } from '../../events/event-hub.ts'
import { newRunId } from '../../events/run-id.ts'
import { type GateBlueprint, gateFrom } from '../../gate/create-gate.ts'
import { isReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import type { GateRunOptions } from '../../gate/gate-internals.ts'
import type { GateResult } from '../../gate/gate-result.ts'
import type { Message } from '../../model/message.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ToolChoice } from '../../model/tool-choice.ts'
import type { HostOutputModes } from '../host/host-output-modes.ts'
import { hostProvider } from '../host/host-provider.ts'
import { type HostDeadline, hostDeadline } from '../host/host-deadline.ts'
import { fromLangChain, toAIMessage, toLangChain, toModelResponse, toolSpecs, withText } from './langchain-messages.ts'
import { type SchemaCache, toolSchemas } from './tool-schemas.ts'
import { type LangChainToolArgs, settleToolArgs } from './tool-args-turn.ts'
import type { NoProgressSettings } from '../../agent/no-progress/no-progress-options.ts'
import { noProgressRequest } from './no-progress-request.ts'
import type { ContentGuard } from '../../validation/guards/index.ts'
import { guardHumanMessages } from './guard-messages.ts'
import { bubblesUp } from './bubbles-up.ts'

/** The part of LangChain's model request a turn reads; the rest goes back to the handler as it came. */
export interface TurnRequest {
  readonly model?: unknown
  readonly messages: BaseMessage[]
  readonly tools: readonly unknown[]
  readonly runtime?: unknown
  readonly toolChoice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } }
  /** The agent's system prompt (LangChain keeps it beside the messages); the schema instruction of `json`/`prompt` modes goes after it. */
  readonly systemPrompt?: string
}

/** What every turn of one middleware shares: its gate options (breaker made once), hub, tool settings and schema cache. */
export interface TurnSettings {
  /** The gate of every turn, settled once (its rules, chain, schema, guards): each turn binds its model (see `gateFrom`). */
  readonly gate: GateBlueprint<unknown>
  readonly events: EventHub
  readonly toolArgs: LangChainToolArgs
  readonly schemas: SchemaCache
  /** The no-progress ladder's settings; absent when turned off. */
  readonly noProgress: NoProgressSettings | undefined
  /** Content guards: each human message's text is screened as `input` before the model sees it. */
  readonly contentGuards: readonly ContentGuard[]
  /** The output-mode memory per chat model: a schema a model refused stays lowered for the middleware's later turns. */
  readonly outputModes: HostOutputModes
}

/**
 * One model turn of a LangChain agent (`wrapModelCall`) as one gate run: every call of the model
 * goes through the gate's chain, the first included, so the breaker, rate limit, budget and
 * deadline come before it, a PreCheck fail-fast spends no call, and a failing call reaches the
 * rules (`retryTransient` retries a 503). A retry sends the request's messages plus the gate's
 * ephemeral tail. An answer with tool calls then gets the Agent's tool-argument loop, whose
 * re-asks are runs of the same gate under the same `runId` and the turn's deadline, with output
 * validation off; a failure carries every attempt of the turn.
 */
export async function modelTurn<R extends TurnRequest>(asked: R, handler: (request: R) => unknown, turn: TurnSettings): Promise<AIMessage> {
  const agentSignal = (asked.runtime as { signal?: AbortSignal } | undefined)?.signal
  // A LangGraph interrupt (a "bubble-up" error) from inside the call is no model failure: it ends
  // the run at once (aborted: no rule retries it, no breaker counts it) and leaves the turn as it came.
  const bubble = new AbortController()
  const signal = agentSignal === undefined ? bubble.signal : AbortSignal.any([agentSignal, bubble.signal])
  // One deadline (`runTimeoutMs`) for the turn's input guards and its gate run, as for an Agent run.
  const deadline = hostDeadline(turn.gate.config.runTimeoutMs, signal)
  try {
    return await guardedTurn(asked, handler, turn, { bubble, signal, deadline })
  } finally {
    deadline.clear()
  }
}

/** The turn's signals: LangGraph's bubble-up, the agent's signal with it, and the turn's deadline over both. */
interface TurnSignals {
  readonly bubble: AbortController
  readonly signal: AbortSignal
  readonly deadline: HostDeadline
}

async function guardedTurn<R extends TurnRequest>(asked: R, handler: (request: R) => unknown, turn: TurnSettings, signals: TurnSignals): Promise<AIMessage> {
  const { bubble, signal, deadline } = signals
  const run = { runId: newRunId(), signal }
  const guardRun = { events: turn.events, runId: run.runId, signal: deadline.signal, late: deadline.late }
  const given = turn.contentGuards.length === 0 ? asked : { ...asked, messages: await guardHumanMessages(asked.messages, turn.contentGuards, guardRun) }
  const history = fromLangChain(given.messages)
  const request = noProgressRequest(given, history, turn.noProgress, { events: turn.events, runId: run.runId })
  const messages = request === given ? history : fromLangChain(request.messages)
  const tools = toolSpecs(request.tools)
  const base: ModelRequest = { messages, ...(tools.length > 0 ? { tools } : {}) }
  // The model is called only here, as the gate's provider: every call is an attempt of the gate's chain.
  const host = hostProvider(
    'langchain',
    modelName(request.model),
    async (attempt: ModelRequest): Promise<AIMessage> => {
      try {
        return (await handler(withTail(request, attempt, messages.length))) as AIMessage
      } catch (error) {
        if (bubblesUp(error)) bubble.abort(error)
        throw error
      }
    },
    toModelResponse,
  )
  const gate = gateFrom(turn.gate, host.provider, turn.outputModes.of(host.provider.name, host.provider.model)).gate
  // The model's own message when it gave the accepted answer (with the text the gate accepted: a
  // redaction replaces it); the fallback's answer otherwise.
  const answerOf = (result: GateResult<unknown>): AIMessage => {
    const own = result.fromFallback ? undefined : host.last()
    return own === undefined ? toAIMessage(result.response) : withText(own, result.response.content)
  }
  // What every gate run of the turn spent: a failure of a re-ask carries the first call's attempts too.
  const ledger = new RunLedger()
  const runGate = (req: ModelRequest, options: GateRunOptions): Promise<AIMessage> =>
    gate.run(req, options).then(
      (result) => {
        ledger.add(result)
        return answerOf(result)
      },
      (error: unknown) => {
        if (bubble.signal.aborted) throw bubble.signal.reason
        if (!isReliabilityFailFastError(error)) throw error
        ledger.add(error)
        throw ledger.widen(error)
      },
    )
  const answer = await runGate(base, deadline.bind({ ...run }))
  if ((answer.tool_calls?.length ?? 0) === 0) return answer
  // Each re-ask runs within what is left of the turn's deadline, never a fresh runTimeoutMs of its own.
  const ask = (all: readonly Message[], toolChoice: ToolChoice | undefined): Promise<AIMessage> =>
    runGate({ ...base, messages: [...all], ...(toolChoice !== undefined ? { toolChoice } : {}) }, deadline.bind({ ...run, validateOutput: false }))
  const loop = { runId: run.runId, signal: deadline.signal, late: deadline.late, spent: ledger }
  return settleToolArgs(answer, { base: messages, schemas: toolSchemas(request.tools, turn.schemas), settings: turn.toolArgs, ask, run: loop }).catch(
    (error: unknown) => {
      throw bubble.signal.aborted ? bubble.signal.reason : error
    },
  )
}

/** The chat model's name (`model` or `modelName`, as LangChain's chat models name it), for pricing and events; `undefined` when it names none. */
function modelName(model: unknown): string | undefined {
  try {
    const { model: name, modelName: legacy } = (model ?? {}) as { model?: unknown; modelName?: unknown }
    if (typeof name === 'string' && name !== '') return name
    return typeof legacy === 'string' && legacy !== '' ? legacy : undefined
  } catch {
    return undefined
  }
}

/**
 * The request of one attempt: LangChain's own, plus the gate's ephemeral tail, a pinned `toolChoice`
 * (a forced re-ask) and the system prompt the gate gave the attempt (the schema instruction of the
 * `json` and `prompt` output modes, after the agent's own prompt: the turn's base request has none).
 */
function withTail<R extends TurnRequest>(request: R, attempt: ModelRequest, baseLength: number): R {
  const tail = attempt.messages.slice(baseLength)
  const choice = attempt.toolChoice
  const system = attempt.system
  if (tail.length === 0 && choice === undefined && system === undefined) return request
  const own = request.systemPrompt
  return {
    ...request,
    ...(tail.length > 0 ? { messages: [...request.messages, ...toLangChain(tail)] } : {}),
    ...(choice !== undefined ? { toolChoice: wireChoice(choice) } : {}),
    ...(system !== undefined ? { systemPrompt: own === undefined || own === '' ? system : `${own}\n\n${system}` } : {}),
  }
}

/** The gate's tool choice as LangChain's request takes it. */
function wireChoice(choice: ToolChoice): NonNullable<TurnRequest['toolChoice']> {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.tool } }
}
