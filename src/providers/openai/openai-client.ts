import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions'

/** Per-call options the adapter passes to the SDK. */
export interface OpenAICallOptions {
  readonly signal?: AbortSignal
}

/**
 * The part of an `OpenAI` client the adapter uses (Chat Completions). Typed structurally so any
 * `new OpenAI({...})` instance fits, and so the SDK stays an optional peer dependency.
 */
export interface OpenAIChatClient {
  readonly chat: {
    readonly completions: {
      create(body: ChatCompletionCreateParamsNonStreaming, options?: OpenAICallOptions): PromiseLike<ChatCompletion>
      create(body: ChatCompletionCreateParamsStreaming, options?: OpenAICallOptions): PromiseLike<AsyncIterable<ChatCompletionChunk>>
    }
  }
}
