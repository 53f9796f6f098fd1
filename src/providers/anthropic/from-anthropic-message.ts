import type { Message, MessageDeltaUsage, Usage as AnthropicUsage } from '@anthropic-ai/sdk/resources/messages'
import type { ReasoningBlock } from '../../model/reasoning.ts'
import type { ModelResponse, StopReason } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { Usage } from '../../model/usage.ts'
import { isRecord } from '../../model/is-record.ts'
import { malformedResponse } from '../adapter-kit/malformed-response.ts'
import { checkToolInput } from '../adapter-kit/parse-tool-args.ts'
import { MISSING_USAGE, optionalTokenCount, tokenCount } from '../adapter-kit/token-count.ts'
import { toolCallId } from '../adapter-kit/tool-call-id.ts'

/**
 * Maps a Messages API response to a provider-neutral response: text, tool calls, and the
 * `thinking` / `redacted_thinking` blocks as {@link ReasoningBlock}s (kept whole, signature
 * included, so a tool loop can send them back). Anything that is not a message with a `content`
 * array is a `malformed-response` error, never an empty answer.
 */
export function fromAnthropicMessage(message: Message, provider = 'anthropic'): ModelResponse {
  const blocks: unknown = isRecord(message) ? message.content : undefined
  if (!Array.isArray(blocks) || !blocks.every((b) => isRecord(b) && typeof b['type'] === 'string')) {
    throw malformedResponse(provider, 'a Messages API message with a content array', message)
  }
  // A text block whose text is no string (`null`) would read as the answer "null".
  const textless = blocks.find((b: Record<string, unknown>) => b['type'] === 'text' && typeof b['text'] !== 'string')
  if (textless !== undefined) throw malformedResponse(provider, 'text blocks with a string text', textless)
  let content = ''
  const toolCalls: ToolCall[] = []
  const reasoning: ReasoningBlock[] = []
  for (const block of message.content) {
    if (block.type === 'text') content += block.text
    else if (block.type === 'tool_use') toolCalls.push({ id: toolCallId(block.id), name: block.name, args: checkToolInput(block.input) })
    else if (block.type === 'thinking') reasoning.push({ text: block.thinking, signature: block.signature })
    else if (block.type === 'redacted_thinking') reasoning.push({ text: '', redactedData: block.data })
  }
  const response: ModelResponse = { content, toolCalls, usage: fromAnthropicUsage(message.usage), stopReason: anthropicStopReason(message.stop_reason) }
  return reasoning.length > 0 ? { ...response, reasoning } : response
}

/**
 * Usage including prompt-cache reads and writes (`input_tokens` excludes both). A count the answer
 * lacks, or reports as no count (a string, a negative number), is `NaN`, never 0: the gate
 * estimates it and marks the usage `estimated`.
 */
export function fromAnthropicUsage(usage: Partial<AnthropicUsage> | Partial<MessageDeltaUsage> | null | undefined): Usage {
  if (!isRecord(usage)) return MISSING_USAGE
  const read = optionalTokenCount(usage.cache_read_input_tokens)
  const write = optionalTokenCount(usage.cache_creation_input_tokens)
  return {
    inputTokens: tokenCount(usage.input_tokens),
    outputTokens: tokenCount(usage.output_tokens),
    ...(read !== undefined ? { cacheReadTokens: read } : {}),
    ...(write !== undefined ? { cacheWriteTokens: write } : {}),
  }
}

/**
 * Maps `stop_reason` (`refusal` reads as `content_filter`, which the gate classifies as kind `refusal`).
 * `pause_turn` (a long turn the API paused before its end, to be sent back for the model to go on)
 * reads as `max_tokens`, with `model_context_window_exceeded`: an answer not finished is never taken as complete.
 */
export function anthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end'
    case 'max_tokens':
    case 'model_context_window_exceeded':
    case 'pause_turn':
      return 'max_tokens'
    case 'tool_use':
      return 'tool_use'
    case 'refusal':
      return 'content_filter'
    default:
      return 'other'
  }
}
