import type { Message, MessageDeltaUsage, Usage as AnthropicUsage } from '@anthropic-ai/sdk/resources/messages'
import type { ModelResponse, StopReason } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { Usage } from '../../model/usage.ts'

/** Maps a Messages API response to a provider-neutral response. */
export function fromAnthropicMessage(message: Message): ModelResponse {
  let content = ''
  const toolCalls: ToolCall[] = []
  for (const block of message.content ?? []) {
    if (block.type === 'text') content += block.text
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, args: block.input })
  }
  return { content, toolCalls, usage: fromAnthropicUsage(message.usage), stopReason: anthropicStopReason(message.stop_reason) }
}

/** Usage including prompt-cache reads and writes (`input_tokens` excludes both). */
export function fromAnthropicUsage(usage: Partial<AnthropicUsage> | Partial<MessageDeltaUsage> | null | undefined): Usage {
  const read = usage?.cache_read_input_tokens ?? undefined
  const write = usage?.cache_creation_input_tokens ?? undefined
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    ...(read !== undefined && read !== null ? { cacheReadTokens: read } : {}),
    ...(write !== undefined && write !== null ? { cacheWriteTokens: write } : {}),
  }
}

/** Maps `stop_reason`. */
export function anthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens'
    case 'tool_use':
      return 'tool_use'
    case 'refusal':
      return 'content_filter'
    default:
      return 'other'
  }
}
