import type { ReasoningBlock } from './reasoning.ts'
import type { ToolCall } from './tool-call.ts'
import type { Usage } from './usage.ts'

/**
 * Why the model stopped producing output. `content_filter` covers refusals too (OpenAI's
 * `content_filter` and `message.refusal`, Anthropic's `refusal`, the AI SDK's `content-filter`): the
 * gate classifies such an answer as kind `refusal`.
 */
export type StopReason = 'end' | 'tool_use' | 'max_tokens' | 'content_filter' | 'other'

/** What a provider returns for one model call. */
export interface ModelResponse {
  readonly content: string
  readonly toolCalls: readonly ToolCall[]
  readonly usage: Usage
  readonly stopReason: StopReason
  /** Reasoning blocks that came with the answer, in order (absent when there were none). */
  readonly reasoning?: readonly ReasoningBlock[]
}
