import type { ToolCall } from './tool-call.ts'
import type { Usage } from './usage.ts'

/** Why the model stopped producing output. */
export type StopReason = 'end' | 'tool_use' | 'max_tokens' | 'content_filter' | 'other'

/** What a provider returns for one model call. */
export interface ModelResponse {
  readonly content: string
  readonly toolCalls: readonly ToolCall[]
  readonly usage: Usage
  readonly stopReason: StopReason
}
