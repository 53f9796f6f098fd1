import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider'
import { EventHub } from '../../events/event-hub.ts'
import { newRunId } from '../../events/run-id.ts'
import { type Gate, type GateBlueprint, gateBlueprint, gateFrom } from '../../gate/create-gate.ts'
import type { ProviderOutputModes } from '../../model/output-mode.ts'
import type { Provider, StreamingProvider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import { streamSdk } from '../../providers/adapter-kit/sdk-call.ts'
import { aiSdkStreamChunks } from '../../providers/ai-sdk/ai-sdk-stream.ts'
import { fromAiSdkGenerateResult } from '../../providers/ai-sdk/from-ai-sdk-result.ts'
import { aiSdkOutputModes } from '../../providers/ai-sdk/ai-sdk-output-modes.ts'
import { hostGateConfig } from '../host/host-gate-config.ts'
import { hostToolSettings } from '../host/host-tool-settings.ts'
import { HostOutputModes } from '../host/host-output-modes.ts'
import { hostProvider } from '../host/host-provider.ts'
import { type HostDeadline, hostDeadline } from '../host/host-deadline.ts'
import { asGiveUp } from './give-up-error.ts'
import { noProgressSettings } from '../../agent/no-progress/no-progress-options.ts'
import { guardPrompt } from './guard-prompt.ts'
import { guardReport } from '../../agent/guard-report.ts'
import { guardStop } from '../../agent/guard-stop.ts'
import { type StreamRelease, streamWindow } from '../../validation/guards/index.ts'
import { guardsOn } from '../../validation/guards/guards-on.ts'
import { noProgressParams } from './no-progress-params.ts'
import { callRequest, withTail } from './call-request.ts'
import type { MiddlewareCall, ReliabilityMiddleware } from './reliability-middleware-type.ts'
import { RELIABILITY_MIDDLEWARE, type ReliabilityMiddlewareOptions } from './reliability-middleware-options.ts'
import { ToolArgsCall, type ToolArgsOptions } from './tool-args-call.ts'
import { toolSchemas } from './tool-schemas.ts'
import { toV4Usage } from './v4-usage.ts'
import { answerText, inputText, inSchemaShape, withArgs } from './answer-content.ts'
import { answerResult, lastAnswer, streamOf, toFinishReason } from './answer-result.ts'

/** A call of `ai` 7 (specification v4); `ai` 6's v3 calls have the same fields for everything the middleware reads and writes. */
type V4Call = MiddlewareCall<LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4StreamResult> & { readonly model: LanguageModelV4 }

/**
 * A language-model middleware for `wrapLanguageModel` that runs the reliability gate inside `generateText` /
 * `streamText`: the answer is validated against `outputSchema`, or against the call's own JSON response format
 * (`Output.object(...)`) when none is given; a failing answer is retried with ephemeral feedback appended to the
 * original prompt; stuck loops and every other rule work as in `createGate`, and events are emitted before any
 * decision. A `breaker` is made once per middleware, and a schema a model refused stays lowered for it (`outputMode`).
 *
 * Tool calls get the Agent's tool-argument loop before the AI SDK sees them: arguments are checked
 * against the input schema of the tool the AI SDK passed and by `toolGuards` (the ID-shape guard by
 * default) on every attempt; invalid ones are retried with feedback within `maxToolRetries`, with
 * `validation_failed` and `tool_retry_outcome` events; the AI SDK receives the corrected call. A
 * retry answered in prose is the seed's `llm_gave_up`: that answer stands, returned in place of the
 * tool calls (`forcedToolReask` re-asks it once with the tool pinned; `toolGiveUpStops` throws instead).
 *
 * When it gives up on an answer the model gave (retries spent, stuck loop, refusal, arguments still
 * invalid or blocked by a guard), it throws a `ReliabilityFailFastError` that also passes the AI
 * SDK's `NoObjectGeneratedError.isInstance` (see `isNoObjectGenerated`).
 *
 * One middleware for `ai` 6 (specification v3) and `ai` 7 (v4): pass it to either's
 * `wrapLanguageModel`; its type fits both, and it returns results of the wrapped model's own version.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: reliabilityMiddleware({ postDecide: strictOutputRules(3) }) })
 * const { output } = await generateText({ model, output: Output.object({ schema }), prompt: 'refund order #42' })
 */
export function reliabilityMiddleware<T = unknown>(given?: ReliabilityMiddlewareOptions<T>): ReliabilityMiddleware {
  // The gate is made per call: what it would refuse is refused here, when the middleware is made.
  const options = RELIABILITY_MIDDLEWARE.check(given) as ReliabilityMiddlewareOptions<T>
  const {
    streamMode = 'buffer',
    events: hub,
    maxToolRetries,
    toolGuards,
    logger,
    name,
    forcedToolReask,
    toolGiveUpStops,
    noProgress,
    contentGuards = [],
    ...gateOptions
  } = options
  const ladder = noProgressSettings(noProgress, 'reliabilityMiddleware')
  const config = hostGateConfig(gateOptions, 'reliabilityMiddleware')
  const events = hub ?? new EventHub()
  // The gate screens each answer (the output guards); the stream's deltas are the middleware's to screen, once.
  const outputGuards = guardsOn(contentGuards, ['output'])
  const toolSettings: ToolArgsOptions = hostToolSettings(
    { maxToolRetries, forcedToolReask, toolGiveUpStops, toolGuards, logger, name },
    config,
    events,
    'ai-sdk',
  )
  // One blueprint per output schema (the middleware's own, or the call's): settled once; each call's gate binds its model (and that model's output modes).
  const blueprints = new WeakMap<object, GateBlueprint<T>>()
  const modes = new HostOutputModes(config.outputMode, events)
  let unschemed: GateBlueprint<T> | undefined
  const blueprintFor = (schema: object | undefined): GateBlueprint<T> => {
    const known = schema === undefined ? unschemed : blueprints.get(schema)
    if (known !== undefined) return known
    const made = gateBlueprint<T>({
      ...config,
      ...(schema !== undefined ? { outputSchema: schema as never } : {}),
      ...(outputGuards.length > 0 ? { contentGuards: outputGuards } : {}),
      providers: [],
      events,
    })
    if (schema === undefined) unschemed = made
    else blueprints.set(schema, made)
    return made
  }
  const gateFor = (params: LanguageModelV4CallOptions, provider: Provider): Gate<T> => {
    const format = params.responseFormat
    const schema = config.outputSchema ?? (format?.type === 'json' && format.schema !== undefined ? format.schema : undefined)
    return gateFrom(blueprintFor(schema as object | undefined), provider, modes.of(provider.name, provider.model)).gate
  }
  /** A provider over `doGenerate` (with the output modes of the model's provider) that remembers the last raw result and the request it answered. */
  const generating = (params: LanguageModelV4CallOptions, model: LanguageModelV4) => {
    let sent: ModelRequest | undefined
    const host = hostProvider(
      model.provider,
      model.modelId,
      (request) => {
        sent = request
        return model.doGenerate(withTail(params, request))
      },
      (result) => fromAiSdkGenerateResult(result, model.provider),
    )
    const provider: Provider = { ...host.provider, outputModes: aiSdkOutputModes(model.provider) }
    return { provider, last: host.last, sent: () => sent }
  }

  const wrap = {
    wrapGenerate(call: V4Call): Promise<LanguageModelV4GenerateResult> {
      // One deadline (`runTimeoutMs`) for the call's prompt guards and its gate run, as for an Agent run.
      const deadline = hostDeadline(config.runTimeoutMs, call.params.abortSignal)
      return wrap.generate(call, deadline).finally(deadline.clear)
    },

    async generate({ params: given, model }: V4Call, deadline: HostDeadline): Promise<LanguageModelV4GenerateResult> {
      const runId = newRunId()
      const guarded = await guardPrompt(given, contentGuards, { events, runId, signal: deadline.signal, late: deadline.late })
      const params = noProgressParams(guarded, ladder, events, runId)
      const { provider, last, sent } = generating(params, model)
      const gate = gateFor(params, provider)
      const base = callRequest(params)
      // The deadline's signal (the host's, joined): the tool-argument loop's guards and schemas wait under it too.
      const runOptions = deadline.bind({ runId, ...(deadline.signal !== undefined ? { signal: deadline.signal } : {}) })
      const result = await gate.run(base, runOptions).catch((error: unknown) => {
        throw asGiveUp(error, lastAnswer(last()))
      })
      const accepted = result.fromFallback ? undefined : last()
      if (accepted === undefined) {
        return {
          content: [{ type: 'text', text: result.response.content }],
          finishReason: toFinishReason(result.response.stopReason),
          usage: toV4Usage(result.usage),
          warnings: [],
        }
      }
      const schemas = toolSchemas(params)
      if (schemas.size === 0 || result.response.toolCalls.length === 0) {
        // Usage covers every attempt, the rejected ones included: they were paid for.
        const content = answerText(accepted.content, result.response.content)
        return { ...accepted, content: inSchemaShape(content, sent(), result.value), usage: toV4Usage(result.usage) }
      }
      const call = new ToolArgsCall({ gate, base, options: runOptions, settings: toolSettings, last: () => lastAnswer(last()) }, result)
      const settled = await call.settle(result.response, schemas)
      // A prose reply that stands is the last answer the model gave.
      if (settled.answer !== undefined) return answerResult(settled.answer, last(), call.usage)
      return { ...accepted, content: withArgs(answerText(accepted.content, result.response.content), settled.calls), usage: toV4Usage(call.usage) }
    },

    wrapStream(call: V4Call): Promise<LanguageModelV4StreamResult> {
      // The run ends with the stream: a consumer that cancels it, or a guard that stops it, ends the
      // host model's stream and every retry, instead of reading the model to its end for nobody.
      const stop = new AbortController()
      const given = call.params.abortSignal
      // One deadline (`runTimeoutMs`) for the call's prompt guards and its gate run, cleared when the stream ends.
      const deadline = hostDeadline(config.runTimeoutMs, given === undefined ? stop.signal : AbortSignal.any([given, stop.signal]))
      return wrap.stream(call, stop, deadline).catch((error: unknown) => {
        deadline.clear()
        throw error
      })
    },

    async stream({ params: given, model }: V4Call, stop: AbortController, deadline: HostDeadline): Promise<LanguageModelV4StreamResult> {
      const runId = newRunId()
      const signal = deadline.signal as AbortSignal
      const guarded = await guardPrompt(given, contentGuards, { events, runId, signal, late: deadline.late })
      const params = noProgressParams(guarded, ladder, events, runId)
      const runOptions = deadline.bind({ runId, signal })
      const provider: StreamingProvider = {
        name: model.provider,
        model: model.modelId,
        // A streamed answer reaches the AI SDK as it came: only a native mode that sends values unchanged both ways.
        outputModes: streamedModes(aiSdkOutputModes(model.provider)),
        complete: () => Promise.reject(new Error('the stream path never calls complete()')),
        stream: (request) =>
          streamSdk(
            model.provider,
            request,
            () => model.doStream(withTail(params, request)),
            (result) => aiSdkStreamChunks(streamOf(result), model.provider),
          ),
      }
      const base = callRequest(params)
      const run = gateFor(params, provider).stream(base, deadline.bind({ mode: streamMode, ...runOptions }))
      const schemas = toolSchemas(params)
      // Text deltas behind the stream guards: only their lookback is held back, nothing they redact or block is delivered.
      const window = streamWindow(contentGuards, { signal, report: guardReport({ events, runId, host: 'ai-sdk' }) })
      const deliver = (controller: ReadableStreamDefaultController<LanguageModelV4StreamPart>, id: string, released: StreamRelease): void => {
        if (released.action !== 'release') throw guardStop(released, 'stream', runId)
        if (released.text !== '') controller.enqueue({ type: 'text-delta', id, delta: released.text })
      }
      const endText = async (controller: ReadableStreamDefaultController<LanguageModelV4StreamPart>, id: string): Promise<void> => {
        deliver(controller, id, await window.end())
        controller.enqueue({ type: 'text-end', id })
      }
      let cancelled = false
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] })
          let open: string | undefined
          try {
            for await (const event of run) {
              if (event.type === 'text') {
                const id = `text-${event.attempt}`
                if (open !== id) {
                  if (open !== undefined) await endText(controller, open)
                  controller.enqueue({ type: 'text-start', id })
                  open = id
                }
                deliver(controller, id, await window.push(event.text))
              } else if (event.type === 'result') {
                if (open !== undefined) await endText(controller, open)
                open = undefined
                const r = event.result
                let calls: readonly ToolCall[] = r.response.toolCalls
                let usage = r.usage
                let stop = r.response.stopReason
                if (schemas.size > 0 && calls.length > 0) {
                  // Retries of tool arguments are whole answers: asked for with doGenerate.
                  const { provider: retries, last } = generating(params, model)
                  const call = new ToolArgsCall(
                    { gate: gateFor(params, retries), base, options: runOptions, settings: toolSettings, last: () => lastAnswer(last()) },
                    r,
                  )
                  const settled = await call.settle(r.response, schemas)
                  usage = call.usage
                  calls = settled.calls ?? []
                  if (settled.answer !== undefined) {
                    // The prose reply stands (llm_gave_up): its text is the answer.
                    const id = 'text-answer'
                    controller.enqueue({ type: 'text-start', id })
                    deliver(controller, id, await window.push(settled.answer.content))
                    await endText(controller, id)
                    stop = settled.answer.stopReason
                  }
                }
                for (const c of calls) controller.enqueue({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: inputText(c.args) })
                controller.enqueue({ type: 'finish', finishReason: toFinishReason(stop), usage: toV4Usage(usage) })
              }
            }
          } catch (error) {
            stop.abort(error)
            // A cancelled stream takes nothing more.
            if (cancelled) return
            if (open !== undefined) controller.enqueue({ type: 'text-end', id: open })
            controller.enqueue({ type: 'error', error: asGiveUp(error, undefined) })
          } finally {
            deadline.clear()
          }
          controller.close()
        },
        cancel(reason) {
          cancelled = true
          stop.abort(reason ?? new DOMException('the stream was cancelled by its consumer', 'AbortError'))
        },
      })
      return { stream }
    },
  }
  return {
    specificationVersion: 'v3',
    on: (name, listener) => events.on(name, listener),
    events$: events.events$,
    // The casts are the one place the versions meet: a v3 call is read as v4 (same fields), and the
    // result, built from the model's own result or from parts both versions share, is the model's type.
    wrapGenerate: (call) => wrap.wrapGenerate(call as unknown as V4Call) as Promise<never>,
    wrapStream: (call) => wrap.wrapStream(call as unknown as V4Call) as Promise<never>,
  }
}

/** The modes of a streamed call: OpenAI's strict mode reshapes values, which a stream cannot map back as it goes, so JSON mode instead. */
function streamedModes(modes: ProviderOutputModes): ProviderOutputModes {
  return modes.native === 'openai-strict' ? { json: modes.json === true } : modes
}
