import type { ReasoningBlock } from './reasoning.ts'
import type { ToolCall } from './tool-call.ts'

/** Who wrote a message. */
export type Role = 'system' | 'user' | 'assistant' | 'tool'

/**
 * One message of a conversation, provider-neutral.
 *
 * `ephemeral` marks feedback the gate appended for a retry: it is sent to the model for that
 * attempt only, never persisted, and adapters strip the flag on the wire.
 */
export interface Message {
  readonly role: Role
  readonly content: string
  /** Tool calls requested by an assistant message. */
  readonly toolCalls?: readonly ToolCall[]
  /**
   * For `role: 'assistant'`: the reasoning blocks the model returned with this turn, sent back
   * before its content (a tool loop with Anthropic extended thinking needs them unchanged).
   */
  readonly reasoning?: readonly ReasoningBlock[]
  /** For `role: 'tool'`: the id of the call this message answers. */
  readonly toolCallId?: string
  /** For `role: 'tool'`: the name of the tool that produced this result. */
  readonly toolName?: string
  /** For `role: 'tool'`: the result is an error the model should react to. */
  readonly isError?: boolean
  /** Set on every message of the gate's retry tail; never persisted. */
  readonly ephemeral?: boolean
}
