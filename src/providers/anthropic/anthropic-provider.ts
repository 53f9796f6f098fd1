import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { ProviderOutputModes } from '../../model/output-mode.ts'
import type { StreamingProvider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import { assertRequest } from '../adapter-kit/assert-request.ts'
import { callSdk, requestModel, signalOption, streamSdk } from '../adapter-kit/sdk-call.ts'
import type { AnthropicMessagesClient } from './anthropic-client.ts'
import { anthropicStreamChunks } from './anthropic-stream.ts'
import { fromAnthropicMessage } from './from-anthropic-message.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import { anthropicBody } from './to-anthropic-request.ts'

/** Options of {@link anthropic}. */
export interface AnthropicProviderOptions {
  /** An `Anthropic` client instance. Give it `maxRetries: 0` so the gate, not the SDK, retries. */
  readonly client: AnthropicMessagesClient
  /**
   * This adapter's model. Behind a gate it wins over the gate's (or agent's) `model` and over
   * `request.model`; only a provider entry's `model` overrides it. Called directly, a request's
   * `model` is used first.
   */
  readonly model?: string
  /** @default 'anthropic' */
  readonly name?: string
  /** `max_tokens` when the request sets none (the API requires one). @default 4096 */
  readonly maxTokens?: number
  /**
   * Place a `cache_control: {type: 'ephemeral'}` breakpoint on the last block of the base
   * conversation, so retries re-read the cached prefix. @default true
   */
  readonly cache?: boolean
  /** Send a request's `responseSchema` as `output_config.format` (structured outputs). @default false */
  readonly structuredOutput?: boolean
  /** Extra body fields (temperature, metadata, ...); the adapter's own fields win. */
  readonly extraBody?: Readonly<Record<string, unknown>>
}

/** The options contract of {@link anthropic} (the client is checked beside it, for its method). */
const ANTHROPIC = optionsContract<AnthropicProviderOptions>('anthropic', {
  client: option.any(),
  model: option.nonEmptyString(),
  name: option.nonEmptyString(),
  maxTokens: option.integer(1),
  cache: option.boolean(),
  structuredOutput: option.boolean(),
  extraBody: option.object(),
})

/** Anthropic's modes: structured outputs (`output_config.format`); the Messages API has no JSON mode. */
const ANTHROPIC_OUTPUT_MODES: ProviderOutputModes = Object.freeze({ native: 'anthropic', json: false })

/**
 * A {@link StreamingProvider} over an `Anthropic` client (Messages API): system, messages, `tool_use` /
 * `tool_result` blocks (with `is_error` for feedback), usage with cache reads and writes, stop
 * reasons, streaming, errors mapped to error kinds (429, 5xx, 529 overloaded, `retry-after`), and a
 * prompt-cache breakpoint at the end of the base conversation.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk'
 * const provider = anthropic({ client: new Anthropic({ maxRetries: 0 }), model: 'claude-sonnet-4-5' })
 */
export function anthropic(given: AnthropicProviderOptions): StreamingProvider {
  const options = typeof given === 'object' && given !== null ? ANTHROPIC.check(given) : undefined
  if (typeof options?.client?.messages?.create !== 'function' || options === undefined) {
    throw new TypeError('anthropic: options.client must be an Anthropic client (new Anthropic({ maxRetries: 0 })), with messages.create()')
  }
  const name = options.name ?? 'anthropic'
  const body = (request: ModelRequest) =>
    anthropicBody(request, {
      model: requestModel(name, request, options.model),
      maxTokens: options.maxTokens ?? 4096,
      cache: options.cache ?? true,
      structuredOutput: options.structuredOutput ?? false,
      extraBody: options.extraBody,
    })
  return {
    name,
    ...(options.model !== undefined ? { model: options.model } : {}),
    outputModes: ANTHROPIC_OUTPUT_MODES,
    async complete(request) {
      assertRequest('anthropic.complete', request)
      const message = await callSdk(name, request, () => options.client.messages.create({ ...body(request), stream: false }, signalOption(request)))
      return fromAnthropicMessage(message, name)
    },
    stream(request) {
      assertRequest('anthropic.stream', request)
      const open = (): PromiseLike<AsyncIterable<RawMessageStreamEvent>> =>
        options.client.messages.create({ ...body(request), stream: true }, signalOption(request))
      return streamSdk(name, request, open, (events) => anthropicStreamChunks(events, name))
    },
  }
}
