import { ToolMessage } from '@langchain/core/messages'
import { createMiddleware } from 'langchain'
import type { Observable } from 'rxjs'
import type { Logger } from '../../agent/logger.ts'
import { toolMessages } from '../../agent/tool-messages.ts'
import type { ToolGuard } from '../../agent/tools/guard.ts'
import { gateBlueprint } from '../../gate/create-gate.ts'
import { EventHub } from '../../events/event-hub.ts'
import { newRunId } from '../../events/run-id.ts'
import { assertContentGuards, type ContentGuard } from '../../validation/guards/index.ts'
import { guardToolMessage } from './guard-messages.ts'
import type { GateEvent, GateEventMap, GateEventName } from '../../events/event-map.ts'
import type { GateConfig } from '../../gate/gate-config.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import { formatFeedback } from '../../validation/index.ts'
import { hostGateChecks } from '../host/host-gate-checks.ts'
import { hostGateConfig } from '../host/host-gate-config.ts'
import { HostOutputModes } from '../host/host-output-modes.ts'
import { hostToolSettings, LOGGER_OPTION } from '../host/host-tool-settings.ts'
import { type NoProgressOption, noProgressCheck, noProgressSettings } from '../../agent/no-progress/no-progress-options.ts'
import { modelTurn, type TurnSettings } from './model-turn.ts'
import { checkToolCall } from './tool-call-check.ts'
import { reportingReturnedErrors } from './returned-error.ts'
import { answeringThrownErrors } from './thrown-error.ts'
import type { LangChainToolArgs } from './tool-args-turn.ts'
import { type SchemaCache, schemaOf } from './tool-schemas.ts'

/** What {@link reliabilityMiddleware} takes: the gate's options, and the tool-argument budget. */
export interface LangChainReliabilityOptions<T = unknown> extends Omit<GateConfig<T>, 'providers' | 'model' | 'events'> {
  /** Argument retries per tool call, asked of the model before the call enters the agent's state. @default 2 */
  readonly maxToolRetries?: number
  /**
   * A retry of rejected tool arguments answered in prose is asked once more with `toolChoice` pinned
   * to the tool. Off by default: the prose answer stands (`llm_gave_up`). @default false
   */
  readonly forcedToolReask?: boolean
  /**
   * A typed stop instead of the seed's outcomes: prose after rejected arguments throws
   * `tool-call-abandoned`, identical rejected arguments `schema-stuck-loop`. @default false
   */
  readonly toolGiveUpStops?: boolean
  /**
   * Guards on the arguments of every tool call with a schema, on every attempt (retries included),
   * and again where the tool runs: a rejected call is never retried nor run, and is answered with a
   * `BLOCKED` error `ToolMessage`. @default [idShapeGuard()]
   */
  readonly toolGuards?: readonly ToolGuard[]
  /** Receives the `validation_retry_outcome ...` log lines. */
  readonly logger?: Logger
  /** The name in those log lines (`ext=`). @default 'langchain' */
  readonly name?: string
  /**
   * No-progress detection on the agent's messages before each model call: a loop is nudged, then
   * its tools withheld for one call, then the call throws kind `no-progress`. On by default; `false`
   * turns it off.
   */
  readonly noProgress?: NoProgressOption
  /**
   * Content guards: each human message's text as `input` before the model sees it, each tool's
   * `ToolMessage` as `tool-result` before it enters the agent's state (redacted, or withheld behind
   * a notice), and the model's answer as `output` before it enters the state (redacted, the
   * redaction validated like the answer; `retry-with-feedback` re-asked). A block or an escalation
   * throws `guard-blocked` / `guard-escalated`. @default []
   */
  readonly contentGuards?: readonly ContentGuard[]
}

/** The options contract of the LangChain `reliabilityMiddleware`: its own keys and the gate's, in its own errors. */
const RELIABILITY_MIDDLEWARE = optionsContract<LangChainReliabilityOptions>('reliabilityMiddleware', {
  ...hostGateChecks(),
  maxToolRetries: option.where('a non-negative integer', (v) => Number.isSafeInteger(v) && (v as number) >= 0),
  forcedToolReask: option.boolean(),
  toolGiveUpStops: option.boolean(),
  toolGuards: option.array(),
  logger: LOGGER_OPTION,
  name: option.nonEmptyString(),
  noProgress: noProgressCheck(),
  contentGuards: option.where('a list of content guards (contentGuard(), piiGuard(), ...)', (v) => {
    assertContentGuards(v, 'reliabilityMiddleware: contentGuards')
    return true
  }),
})

/** The run's abort signal, as LangChain hands it to a middleware. */
function runSignal(request: { readonly runtime?: unknown }): AbortSignal | undefined {
  return (request.runtime as { signal?: AbortSignal } | undefined)?.signal
}

/** The LangChain middleware, plus the gate's typed events (every payload carries its `runId`). */
export type LangChainReliabilityMiddleware = ReturnType<typeof createMiddleware> & {
  on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void
  readonly events$: Observable<GateEvent>
}

// Marks the tool results this middleware wrote (feedback on arguments still invalid after the retries).
const MARK = 'reliability-gate:tool-args-invalid'

/**
 * The reliability gate as LangChain.js v1 agent middleware (`createAgent({ middleware: [...] })`).
 *
 * - `wrapModelCall`: every model turn is one gate run, and every call of the model goes through the
 *   gate's chain, the first included: the rate limit, breaker, budget and `timeoutMs` come before
 *   each call, a `preCheck` fail-fast spends no call, and a failing call reaches the rules
 *   (`retryTransient` retries a 503). A final answer (no tool calls) is checked against
 *   `outputSchema` and every rule (`postDecide`, stuck loops, truncation...). A rejected answer is
 *   re-asked with the gate's ephemeral tail appended to the request's messages; only the accepted
 *   `AIMessage` is returned, so only it enters the agent's state. When the gate gives up it throws a
 *   `ReliabilityFailFastError`; a LangGraph interrupt from inside the call leaves as it came.
 *   An answer with tool calls gets the Agent's tool-argument loop first: each call is checked
 *   against its tool's schema (Zod, JSON Schema, any schema `compileSchema` accepts) and an invalid
 *   one is re-asked with the ephemeral tail, up to `maxToolRetries` times; the returned message holds
 *   each call with its final arguments, so after a successful retry the state holds only the
 *   accepted call. A retry answered in prose is `llm_gave_up`: that answer stands. `forcedToolReask`
 *   and `toolGiveUpStops` turn on the forced re-ask and the typed stop, as on the Agent.
 * - `wrapToolCall`: the arguments are checked again where the tool runs (schema and `toolGuards`): a
 *   call still invalid (`exhausted`) is answered with an error `ToolMessage` holding the gate's
 *   feedback, one a guard rejected with a `BLOCKED` one, and the run goes on; the tool never runs on them.
 *   A tool that throws is answered as LangChain answers it with no middleware (an error `ToolMessage`
 *   `RangeError: …\n Please fix your mistakes.`), and the run goes on.
 *
 * Each model turn is one gate run with its own `runId`, on every event (`on()`, `events$`); its
 * tool-argument re-asks are runs of the same gate under that `runId`. A `breaker` given as options is
 * made once per middleware, so it spans the calls of every agent the middleware serves (as do the
 * `budget` and `rateLimit` objects given); the chat model's own name (`model`) prices the calls. No rule
 * retries by default, as with `createGate`: pass `postDecide: strictOutputRules(3)` (or your rules).
 * LangChain wraps what a middleware throws in its `MiddlewareError`: the `ReliabilityFailFastError`
 * is its `cause`.
 *
 * @example
 * const agent = createAgent({ model, tools: [getWeather], middleware: [reliabilityMiddleware({ outputSchema: Answer })] })
 */
export function reliabilityMiddleware<T = unknown>(given?: LangChainReliabilityOptions<T>): LangChainReliabilityMiddleware {
  const options = RELIABILITY_MIDDLEWARE.check(given) as LangChainReliabilityOptions<T>
  const { maxToolRetries, forcedToolReask, toolGiveUpStops, toolGuards, logger, name, noProgress, contentGuards = [], ...gateOptions } = options
  const config = hostGateConfig(gateOptions, 'reliabilityMiddleware')
  const events = new EventHub()
  const schemas: SchemaCache = new WeakMap()
  const toolArgs: LangChainToolArgs = hostToolSettings(
    { maxToolRetries, forcedToolReask, toolGiveUpStops, toolGuards, logger, name },
    config,
    events,
    'langchain',
  )

  // The output guards screen every answer in the gate (the input and tool results are screened in the turn and in wrapToolCall).
  const guards = contentGuards.length > 0 ? { contentGuards } : {}
  const gate = gateBlueprint({ ...config, ...guards, providers: [], events })
  const turn: TurnSettings = {
    gate,
    events,
    toolArgs,
    schemas,
    noProgress: noProgressSettings(noProgress, 'reliabilityMiddleware'),
    contentGuards,
    outputModes: new HostOutputModes(config.outputMode, events),
  }

  const middleware = createMiddleware({
    name: 'ReliabilityGate',
    wrapModelCall: (request, handler) => modelTurn(request, handler, turn),
    async wrapToolCall(request, handler) {
      // A tool that throws is answered as LangChain answers it with no middleware in front (the run goes on).
      const tolerant: typeof handler = (r) => answeringThrownErrors(() => handler(r), r.toolCall, runSignal(r))
      const result = await checkedToolCall(reportingReturnedErrors(request), tolerant)
      if (contentGuards.length === 0) return result
      const run = { events, runId: newRunId(), signal: runSignal(request) }
      return (await guardToolMessage(result, request.toolCall.name, contentGuards, run)) as typeof result
    },
  })
  return Object.assign(middleware, { on: events.on.bind(events) as LangChainReliabilityMiddleware['on'], events$: events.events$ })

  /** The tool call with its arguments checked again where the tool runs (schema and `toolGuards`). */
  async function checkedToolCall(...[request, handler]: Parameters<WrapToolCall>): Promise<Awaited<ReturnType<WrapToolCall>>> {
    const schema = schemaOf(request.tool, schemas)
    if (schema === undefined) return handler(request)
    const call = request.toolCall
    const verdict = await checkToolCall(call, schema, toolArgs, runSignal(request))
    if (verdict.status === 'valid') return handler({ ...request, toolCall: { ...call, args: verdict.value as Record<string, unknown> } })
    // The argument loop already reported it (exhausted, or blocked): the model gets the feedback, the run goes on.
    const content =
      verdict.status === 'guard-rejected'
        ? toolMessages.guardRejected(call.name, verdict.rejection.guard, verdict.rejection.reason)
        : formatFeedback({
            target: 'tool',
            stage: 'tool-args',
            issues: verdict.failure.issues,
            toolName: call.name,
            ...(config.retryHint !== undefined ? { retryHint: config.retryHint } : {}),
          })
    return new ToolMessage({ content, tool_call_id: call.id ?? '', name: call.name, status: 'error', artifact: MARK })
  }
}

/** LangChain's `wrapToolCall` hook, as `createMiddleware` types it. */
type WrapToolCall = NonNullable<Parameters<typeof createMiddleware>[0]['wrapToolCall']>
