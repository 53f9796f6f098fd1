import type { AIMessage } from '@langchain/core/messages'
import { ToolMessage } from '@langchain/core/messages'
import { createMiddleware } from 'langchain'
import type { Observable } from 'rxjs'
import { EventHub } from '../../events/event-hub.ts'
import type { GateEvent, GateEventMap, GateEventName } from '../../events/event-map.ts'
import { newRunId } from '../../events/run-id.ts'
import { emitValidationFailed } from '../../events/validation-failed-event.ts'
import { checkRules } from '../../gate/check-rules.ts'
import { createGate } from '../../gate/create-gate.ts'
import { ReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import type { GateConfig } from '../../gate/gate-config.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import { hostGateChecks } from '../ai-sdk-middleware/host-gate-checks.ts'
import type { Provider } from '../../model/provider.ts'
import { ZERO_USAGE } from '../../model/usage.ts'
import { compileSchema, type CompiledSchema, formatFeedback, validateToolArgs } from '../../validation/index.ts'
import { fromLangChain, toLangChain, toModelResponse } from './langchain-messages.ts'

/** What {@link reliabilityMiddleware} takes: the gate's options, and the tool-argument budget. */
export interface LangChainReliabilityOptions<T = unknown> extends Omit<GateConfig<T>, 'providers' | 'model' | 'events'> {
  /** Calls of one tool with invalid arguments answered with feedback in one agent turn, before the run fails. @default 2 */
  readonly maxToolRetries?: number
}

/** The options contract of the LangChain `reliabilityMiddleware`: its own keys and the gate's, in its own errors. */
const RELIABILITY_MIDDLEWARE = optionsContract<LangChainReliabilityOptions>('reliabilityMiddleware', {
  ...hostGateChecks(),
  maxToolRetries: option.where('a non-negative integer', (v) => Number.isInteger(v) && (v as number) >= 0),
})

/** The LangChain middleware, plus the gate's typed events (every payload carries its `runId`). */
export type LangChainReliabilityMiddleware = ReturnType<typeof createMiddleware> & {
  on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void
  readonly events$: Observable<GateEvent>
}

// Marks the tool results this middleware wrote, so a turn's budget is counted from the agent's own state.
const MARK = 'reliability-gate:tool-args-invalid'

/**
 * The reliability gate as LangChain.js v1 agent middleware (`createAgent({ middleware: [...] })`).
 *
 * - `wrapModelCall`: a final answer (no tool calls) goes through the gate: `outputSchema` and every
 *   rule (`postDecide`, `preCheck`, stuck loops, truncation...). A rejected answer is re-asked with
 *   the gate's ephemeral tail appended to the request's messages; only the accepted `AIMessage`
 *   is returned, so only it enters the agent's state. When the gate gives up it throws a
 *   `ReliabilityFailFastError`. An answer with tool calls passes on to the tools.
 * - `wrapToolCall`: the call's arguments are checked against the tool's schema (Zod, JSON Schema,
 *   any schema `compileSchema` accepts) before the tool runs; a bad call is answered with an error
 *   `ToolMessage` holding the gate's feedback, which the model can correct, up to `maxToolRetries`
 *   per tool since the last user message; then the run fails with kind `tool-args-invalid`.
 *
 * Each model call is one gate run with its own `runId`, on every event (`on()`, `events$`). No rule
 * retries by default, as with `createGate`: pass `postDecide: strictOutputRules(3)` (or your rules).
 * LangChain wraps what a middleware throws in its `MiddlewareError`: the `ReliabilityFailFastError`
 * is its `cause`.
 *
 * @example
 * const agent = createAgent({ model, tools: [getWeather], middleware: [reliabilityMiddleware({ outputSchema: Answer })] })
 */
export function reliabilityMiddleware<T = unknown>(given?: LangChainReliabilityOptions<T>): LangChainReliabilityMiddleware {
  const options = RELIABILITY_MIDDLEWARE.check(given) as LangChainReliabilityOptions<T>
  const { maxToolRetries: retries, ...gateOptions } = options
  checkRules(gateOptions.preCheck, 'reliabilityMiddleware: preCheck')
  checkRules(gateOptions.postDecide, 'reliabilityMiddleware: postDecide')
  if (gateOptions.outputSchema !== undefined) compileSchema(gateOptions.outputSchema)
  const maxToolRetries = retries ?? 2
  const events = new EventHub()
  const schemas = new WeakMap<object, CompiledSchema<unknown> | null>()

  const middleware = createMiddleware({
    name: 'ReliabilityGate',
    async wrapModelCall(request, handler) {
      const first = (await handler(request)) as AIMessage
      if ((first.tool_calls?.length ?? 0) > 0) return first
      let last = first
      let calls = 0
      const provider: Provider = {
        name: 'langchain',
        async complete(req) {
          // The first answer is in hand; a retry sends the request's messages plus the gate's ephemeral tail.
          if (calls++ > 0) last = (await handler({ ...request, messages: [...request.messages, ...toLangChain(req.messages.slice(base.length))] })) as AIMessage
          return toModelResponse(last)
        },
      }
      const base = fromLangChain(request.messages)
      const signal = (request.runtime as { signal?: AbortSignal } | undefined)?.signal
      await createGate<T>({ ...gateOptions, providers: provider, events }).run(
        { messages: base },
        { runId: newRunId(), ...(signal !== undefined ? { signal } : {}) },
      )
      return last
    },
    async wrapToolCall(request, handler) {
      const schema = schemaOf(request.tool, schemas)
      if (schema === undefined) return handler(request)
      const call = request.toolCall
      const verdict = await validateToolArgs(call.args, schema)
      if (verdict.ok) return handler({ ...request, toolCall: { ...call, args: verdict.value as Record<string, unknown> } })
      const runId = newRunId()
      const used = failuresThisTurn(request.state.messages, call.name)
      if (events.has('validation_failed'))
        emitValidationFailed(events, { runId, tags: {}, provider: 'langchain', model: undefined }, verdict.failure, used + 1, used + 1)
      if (used >= maxToolRetries) {
        throw new ReliabilityFailFastError({
          kind: 'tool-args-invalid',
          reason: `the arguments of tool '${call.name}' are still invalid after ${used} ${used === 1 ? 'retry' : 'retries'} (${verdict.failure.message})`,
          phase: 'post-decide',
          runId,
          attempts: [],
          usage: ZERO_USAGE,
          costUsd: 0,
          validationError: verdict.failure,
          cause: verdict.failure,
        })
      }
      const feedback = formatFeedback({
        target: 'tool',
        stage: 'tool-args',
        issues: verdict.failure.issues,
        toolName: call.name,
        ...(gateOptions.retryHint !== undefined ? { retryHint: gateOptions.retryHint } : {}),
      })
      return new ToolMessage({ content: feedback, tool_call_id: call.id ?? '', name: call.name, status: 'error', artifact: MARK })
    },
  })
  return Object.assign(middleware, { on: events.on.bind(events) as LangChainReliabilityMiddleware['on'], events$: events.events$ })
}

/** The tool's compiled schema, once per tool; `undefined` for a tool without one (or one `compileSchema` does not take). */
function schemaOf(tool: unknown, cache: WeakMap<object, CompiledSchema<unknown> | null>): CompiledSchema<unknown> | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined
  let known = cache.get(tool)
  if (known === undefined) {
    const schema = (tool as { schema?: unknown }).schema
    try {
      known = typeof schema === 'object' && schema !== null ? compileSchema(schema as never) : null
    } catch {
      known = null
    }
    cache.set(tool, known)
  }
  return known ?? undefined
}

/** Bad calls of `tool` this middleware answered since the last user message. */
function failuresThisTurn(messages: readonly { readonly type?: string }[] | undefined, tool: string): number {
  let n = 0
  for (let i = (messages?.length ?? 0) - 1; i >= 0; i--) {
    const m = (messages as readonly { type?: string; name?: string; artifact?: unknown }[])[i]
    if (m?.type === 'human') break
    if (m?.type === 'tool' && m.artifact === MARK && m.name === tool) n++
  }
  return n
}
