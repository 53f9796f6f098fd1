import type { LanguageModelV3, LanguageModelV4, LanguageModelV4GenerateResult, LanguageModelV4StreamResult } from '@ai-sdk/provider'
import type { Provider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import { toProviderError } from '../adapter-kit/to-provider-error.ts'
import { aiSdkStreamChunks } from './ai-sdk-stream.ts'
import { fromAiSdkResult } from './from-ai-sdk-result.ts'
import { toAiSdkCallOptions } from './to-ai-sdk-prompt.ts'

/** A language model of the AI SDK (specification v4, or v3 from older provider packages). */
export type AiSdkLanguageModel = LanguageModelV4 | LanguageModelV3

/** Options of {@link aiSdk}. */
export interface AiSdkProviderOptions {
  /** Provider name in events and logs. @default `model.provider` */
  readonly name?: string
  /** Send a request's `responseSchema` as `responseFormat: {type: 'json', schema}`. @default true */
  readonly structuredOutput?: boolean
}

/**
 * A {@link Provider} over any AI SDK `LanguageModel` (`openai('gpt-4o')`, `anthropic(...)`,
 * `createGateway(...)(...)`, ...), so every AI SDK provider works behind the gate. The model id is
 * the model's own; `request.model` is ignored.
 *
 * @example
 * import { createOpenAI } from '@ai-sdk/openai'
 * const provider = aiSdk(createOpenAI({ apiKey })('gpt-4o-mini'))
 */
export function aiSdk(model: AiSdkLanguageModel, options: AiSdkProviderOptions = {}): Provider & { stream(request: ModelRequest): AsyncIterable<StreamChunk> } {
  const name = options.name ?? model.provider
  const structured = options.structuredOutput ?? true
  // v3 and v4 share every field this adapter reads and writes.
  const v4 = model as LanguageModelV4
  return {
    name,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      let result: LanguageModelV4GenerateResult
      try {
        result = await v4.doGenerate(toAiSdkCallOptions(request, structured))
      } catch (error) {
        throw toProviderError(error, name, request.signal)
      }
      return fromAiSdkResult(result.content, result.finishReason, result.usage)
    },
    async *stream(request: ModelRequest): AsyncGenerator<StreamChunk> {
      try {
        const result: LanguageModelV4StreamResult = await v4.doStream(toAiSdkCallOptions(request, structured))
        yield* aiSdkStreamChunks(result.stream)
      } catch (error) {
        throw toProviderError(error, name, request.signal)
      }
    },
  }
}
