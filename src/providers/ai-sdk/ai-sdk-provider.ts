import { option, optionsContract } from '../../model/options-contract.ts'
import type { LanguageModelV4 } from '@ai-sdk/provider'
import type { StreamingProvider } from '../../model/provider.ts'
import { assertRequest } from '../adapter-kit/assert-request.ts'
import { callSdk, streamSdk } from '../adapter-kit/sdk-call.ts'
import type { AiSdkLanguageModel } from './ai-sdk-shapes.ts'
import { aiSdkOutputModes } from './ai-sdk-output-modes.ts'
import { aiSdkStreamChunks } from './ai-sdk-stream.ts'
import { fromAiSdkGenerateResult } from './from-ai-sdk-result.ts'
import { toAiSdkCallOptions } from './to-ai-sdk-prompt.ts'

/** Options of {@link aiSdk}. */
export interface AiSdkProviderOptions {
  /** Provider name in events and logs. @default `model.provider` */
  readonly name?: string
  /** Send a request's `responseSchema` as `responseFormat: {type: 'json', schema}`. @default true */
  readonly structuredOutput?: boolean
}

/** The options contract of {@link aiSdk}. */
const AI_SDK = optionsContract<AiSdkProviderOptions>('aiSdk', { name: option.nonEmptyString(), structuredOutput: option.boolean() })

/**
 * A {@link StreamingProvider} over any AI SDK `LanguageModel` (`openai('gpt-4o')`, `anthropic(...)`,
 * `createGateway(...)(...)`, ...), so every AI SDK provider works behind the gate. The model id is
 * the model's own (reported as the provider's `model`, so events and pricing name it);
 * `request.model` is ignored.
 *
 * @example
 * import { createOpenAI } from '@ai-sdk/openai'
 * const provider = aiSdk(createOpenAI({ apiKey })('gpt-4o-mini'))
 */
export function aiSdk(model: AiSdkLanguageModel, given?: AiSdkProviderOptions): StreamingProvider {
  if (typeof model !== 'object' || model === null || typeof model.doGenerate !== 'function') {
    throw new TypeError('aiSdk: expected an AI SDK language model (specificationVersion v3 or v4, with doGenerate())')
  }
  const options = AI_SDK.check(given)
  const name = options.name ?? model.provider
  const structured = options.structuredOutput ?? true
  // v3 and v4 share every field this adapter reads and writes.
  const v4 = model as unknown as LanguageModelV4
  return {
    name,
    model: model.modelId,
    outputModes: aiSdkOutputModes(typeof model.provider === 'string' ? model.provider : ''),
    async complete(request) {
      assertRequest('aiSdk.complete', request)
      const result: unknown = await callSdk(name, request, () => v4.doGenerate(toAiSdkCallOptions(request, structured)))
      return fromAiSdkGenerateResult(result, name)
    },
    stream(request) {
      assertRequest('aiSdk.stream', request)
      return streamSdk(
        name,
        request,
        () => v4.doStream(toAiSdkCallOptions(request, structured)),
        // A model resolving to no result (null) has no stream: the reader types that as a malformed answer.
        (result) => aiSdkStreamChunks((result as Partial<typeof result> | null)?.stream as typeof result.stream, name),
      )
    },
  }
}
