import type { Message, MessageCreateParamsNonStreaming, MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'

/** Per-call options the adapter passes to the SDK. */
export interface AnthropicCallOptions {
  readonly signal?: AbortSignal
}

/**
 * The part of an `Anthropic` client the adapter uses (Messages API). Typed structurally so any
 * `new Anthropic({...})` instance fits, and so the SDK stays an optional peer dependency.
 */
export interface AnthropicMessagesClient {
  readonly messages: {
    create(body: MessageCreateParamsNonStreaming, options?: AnthropicCallOptions): PromiseLike<Message>
    create(body: MessageCreateParamsStreaming, options?: AnthropicCallOptions): PromiseLike<AsyncIterable<RawMessageStreamEvent>>
  }
}
