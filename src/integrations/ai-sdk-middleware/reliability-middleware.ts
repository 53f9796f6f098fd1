import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider'
import type { Observable } from 'rxjs'
import { EventHub } from '../../events/event-hub.ts'
import type { GateEvent, GateEventMap, GateEventName } from '../../events/event-map.ts'
import { createGate } from '../../gate/create-gate.ts'
import type { GateConfig } from '../../gate/gate-config.ts'
import type { Provider, StreamingProvider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { StopReason } from '../../model/response.ts'
import { callSdk, streamSdk } from '../../providers/adapter-kit/sdk-call.ts'
import { aiSdkStreamChunks } from '../../providers/ai-sdk/ai-sdk-stream.ts'
import { fromAiSdkResult } from '../../providers/ai-sdk/from-ai-sdk-result.ts'
import { toAiSdkMessage } from '../../providers/ai-sdk/to-ai-sdk-prompt.ts'
import { promptToMessages } from './prompt-to-messages.ts'
import { toV4Usage } from './v4-usage.ts'

/** Options of {@link reliabilityMiddleware}: a gate configuration without providers. */
export interface ReliabilityMiddlewareOptions<T = unknown> extends Omit<GateConfig<T>, 'providers' | 'model' | 'events'> {
  /**
   * How `streamText` receives text: `buffer` (only the validated answer, retries invisible) or
   * `passthrough` (as it comes; no retry once text was delivered). @default 'buffer'
   */
  readonly streamMode?: 'buffer' | 'passthrough'
  /** Event hub to emit on; a private one by default. */
  readonly events?: EventHub
}

/** The middleware, plus the gate's typed events. */
export interface ReliabilityMiddleware extends LanguageModelV4Middleware {
  on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void
  readonly events$: Observable<GateEvent>
}

/**
 * A language-model middleware for `wrapLanguageModel` that runs the reliability gate inside
 * `generateText` / `streamText`: the answer is validated against `outputSchema`, or against the
 * call's own JSON response format (`Output.object(...)`) when none is given; a failing answer is
 * retried with ephemeral feedback appended to the original prompt; stuck loops and every other
 * rule work as in `createGate`, and events are emitted before any decision.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: reliabilityMiddleware({ postDecide: strictOutputRules(3) }) })
 * const { output } = await generateText({ model, output: Output.object({ schema }), prompt: 'refund order #42' })
 */
export function reliabilityMiddleware<T = unknown>(options: ReliabilityMiddlewareOptions<T> = {}): ReliabilityMiddleware {
  const { streamMode = 'buffer', events: hub, ...config } = options
  const events = hub ?? new EventHub()
  const gateFor = (params: LanguageModelV4CallOptions, provider: Provider) => {
    const format = params.responseFormat
    const schema = config.outputSchema ?? (format?.type === 'json' && format.schema !== undefined ? (format.schema as never) : undefined)
    return createGate<T>({ ...config, ...(schema !== undefined ? { outputSchema: schema } : {}), providers: provider, events })
  }
  return {
    specificationVersion: 'v4',
    on: (name, listener) => events.on(name, listener),
    events$: events.events$,

    async wrapGenerate({ params, model }) {
      let accepted: LanguageModelV4GenerateResult | undefined
      const provider: Provider = {
        name: model.provider,
        async complete(request) {
          accepted = undefined
          const result = await callSdk(model.provider, request, () => model.doGenerate(withTail(params, request)))
          accepted = result
          return fromAiSdkResult(result.content, result.finishReason, result.usage)
        },
      }
      const result = await gateFor(params, provider).run(baseRequest(params), params.abortSignal !== undefined ? { signal: params.abortSignal } : {})
      const usage = toV4Usage(result.usage)
      if (accepted === undefined || result.fromFallback) {
        return { content: [{ type: 'text', text: result.response.content }], finishReason: toFinishReason(result.response.stopReason), usage, warnings: [] }
      }
      // Usage covers every attempt, the rejected ones included: they were paid for.
      return { ...accepted, usage }
    },

    async wrapStream({ params, model }) {
      const provider: StreamingProvider = {
        name: model.provider,
        complete: () => Promise.reject(new Error('the stream path never calls complete()')),
        stream: (request) => streamSdk(model.provider, request, () => model.doStream(withTail(params, request)), (result) => aiSdkStreamChunks(result.stream)),
      }
      const run = gateFor(params, provider).stream(baseRequest(params), { mode: streamMode, ...(params.abortSignal !== undefined ? { signal: params.abortSignal } : {}) })
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] })
          let open: string | undefined
          try {
            for await (const event of run) {
              if (event.type === 'text') {
                const id = `text-${event.attempt}`
                if (open !== id) {
                  if (open !== undefined) controller.enqueue({ type: 'text-end', id: open })
                  controller.enqueue({ type: 'text-start', id })
                  open = id
                }
                controller.enqueue({ type: 'text-delta', id, delta: event.text })
              } else if (event.type === 'result') {
                if (open !== undefined) controller.enqueue({ type: 'text-end', id: open })
                open = undefined
                const r = event.result
                for (const call of r.response.toolCalls) {
                  controller.enqueue({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) })
                }
                controller.enqueue({ type: 'finish', finishReason: toFinishReason(r.response.stopReason), usage: toV4Usage(r.usage) })
              }
            }
          } catch (error) {
            if (open !== undefined) controller.enqueue({ type: 'text-end', id: open })
            controller.enqueue({ type: 'error', error })
          }
          controller.close()
        },
      })
      return { stream }
    },
  }
}

/** The call's params with the gate's ephemeral tail appended to the original prompt. */
function withTail(params: LanguageModelV4CallOptions, request: ModelRequest): LanguageModelV4CallOptions {
  const tail = request.messages.filter((m) => m.ephemeral === true).map(toAiSdkMessage)
  return {
    ...params,
    prompt: tail.length === 0 ? params.prompt : [...params.prompt, ...tail],
    ...(request.signal !== undefined ? { abortSignal: request.signal } : {}),
  }
}

function baseRequest(params: LanguageModelV4CallOptions): ModelRequest {
  const { system, messages } = promptToMessages(params.prompt)
  return { ...(system !== undefined ? { system } : {}), messages, ...(params.maxOutputTokens !== undefined ? { maxTokens: params.maxOutputTokens } : {}) }
}

function toFinishReason(stop: StopReason): LanguageModelV4FinishReason {
  const unified = ({ end: 'stop', max_tokens: 'length', tool_use: 'tool-calls', content_filter: 'content-filter', other: 'other' } as const)[stop]
  return { unified, raw: undefined }
}

