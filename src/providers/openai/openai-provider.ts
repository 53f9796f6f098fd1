import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import type { ProviderOutputModes } from '../../model/output-mode.ts'
import type { StreamingProvider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import { assertRequest } from '../adapter-kit/assert-request.ts'
import { callSdk, requestModel, signalOption, streamSdk } from '../adapter-kit/sdk-call.ts'
import { fromOpenAICompletion } from './from-openai-completion.ts'
import type { OpenAIChatClient } from './openai-client.ts'
import { openAIStreamChunks } from './openai-stream.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import { openAIBody, type OpenAIStructuredOutput } from './to-openai-request.ts'

/** Options of {@link openai}. */
export interface OpenAIProviderOptions {
  /** An `OpenAI` client instance. Give it `maxRetries: 0` so the gate, not the SDK, retries. */
  readonly client: OpenAIChatClient
  /**
   * This adapter's model. Behind a gate it wins over the gate's (or agent's) `model` and over
   * `request.model`; only a provider entry's `model` overrides it. Called directly, a request's
   * `model` is used first.
   */
  readonly model?: string
  /** @default 'openai' */
  readonly name?: string
  /**
   * How a request's `responseSchema` is sent: `response_format: {type: 'json_schema', ...}` with
   * `strict: false` (`'json_schema'`), with `strict: true` (`'strict'`, which needs a schema that
   * meets OpenAI's strict-mode rules), or not at all (`false`).
   * @default 'json_schema'
   */
  readonly structuredOutput?: OpenAIStructuredOutput
  /** `json_schema.name` on the wire. @default 'response' */
  readonly schemaName?: string
  /** Extra body fields (temperature, seed, ...); the adapter's own fields win. */
  readonly extraBody?: Readonly<Record<string, unknown>>
}

/** The options contract of {@link openai} (the client is checked beside it, for its method). */
const OPENAI = optionsContract<OpenAIProviderOptions>('openai', {
  client: option.any(),
  model: option.nonEmptyString(),
  name: option.nonEmptyString(),
  structuredOutput: option.oneOf('json_schema', 'strict', false),
  schemaName: option.nonEmptyString(),
  extraBody: option.object(),
})

/** OpenAI's modes: strict structured outputs (`json_schema` with `strict: true`) and JSON mode (`json_object`). */
const OPENAI_OUTPUT_MODES: ProviderOutputModes = Object.freeze({ native: 'openai-strict', json: true })

/**
 * A {@link StreamingProvider} over an `OpenAI` client (Chat Completions): messages, tools and tool calls,
 * structured outputs, usage, stop reasons, streaming, and API errors mapped to error kinds with
 * status and `retry-after`. Unparseable tool-call arguments are kept as the raw string.
 *
 * @example
 * import OpenAI from 'openai'
 * const provider = openai({ client: new OpenAI({ maxRetries: 0 }), model: 'gpt-4o-mini' })
 * const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
 */
export function openai(given: OpenAIProviderOptions): StreamingProvider {
  const options = typeof given === 'object' && given !== null ? OPENAI.check(given) : undefined
  if (typeof options?.client?.chat?.completions?.create !== 'function' || options === undefined) {
    throw new TypeError('openai: options.client must be an OpenAI client (new OpenAI({ maxRetries: 0 })), with chat.completions.create()')
  }
  const name = options.name ?? 'openai'
  const body = (request: ModelRequest) =>
    openAIBody(request, {
      model: requestModel(name, request, options.model),
      structuredOutput: options.structuredOutput ?? 'json_schema',
      schemaName: options.schemaName ?? 'response',
      extraBody: options.extraBody,
    })
  return {
    name,
    ...(options.model !== undefined ? { model: options.model } : {}),
    outputModes: OPENAI_OUTPUT_MODES,
    async complete(request) {
      assertRequest('openai.complete', request)
      const completion = await callSdk(name, request, () => options.client.chat.completions.create({ ...body(request), stream: false }, signalOption(request)))
      return fromOpenAICompletion(completion, name)
    },
    stream(request) {
      assertRequest('openai.stream', request)
      const open = (): PromiseLike<AsyncIterable<ChatCompletionChunk>> =>
        options.client.chat.completions.create({ ...body(request), stream: true, stream_options: { include_usage: true } }, signalOption(request))
      return streamSdk(name, request, open, (events) => openAIStreamChunks(events, name))
    },
  }
}
