import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import { parseToolArgs } from '../adapter-kit/parse-tool-args.ts'
import { anthropicStopReason, fromAnthropicUsage } from './from-anthropic-message.ts'

interface PartialToolUse {
  id: string
  name: string
  json: string
}

/**
 * Turns Messages API stream events (`message_start`, `content_block_*`, `message_delta`,
 * `message_stop`) into text chunks and a final `done` chunk. Usage starts from `message_start`
 * (input and cache tokens) and is updated by `message_delta` (output tokens).
 */
export async function* anthropicStreamChunks(events: AsyncIterable<RawMessageStreamEvent>): AsyncGenerator<StreamChunk> {
  let content = ''
  let stop: string | null | undefined
  let usage = fromAnthropicUsage(undefined)
  const tools = new Map<number, PartialToolUse>()
  for await (const event of events) {
    switch (event.type) {
      case 'message_start':
        usage = fromAnthropicUsage(event.message.usage)
        // Input and cache tokens are known now: a stream aborted later is still billed for them.
        yield { type: 'usage', usage }
        break
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') tools.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' })
        break
      case 'content_block_delta':
        if (event.delta.type === 'text_delta' && event.delta.text !== '') {
          content += event.delta.text
          yield { type: 'text', text: event.delta.text }
        } else if (event.delta.type === 'input_json_delta') {
          const tool = tools.get(event.index)
          if (tool !== undefined) tool.json += event.delta.partial_json
        }
        break
      case 'message_delta': {
        stop = event.delta.stop_reason ?? stop
        const delta = fromAnthropicUsage(event.usage)
        usage = {
          ...usage,
          outputTokens: delta.outputTokens,
          ...(event.usage.input_tokens !== null && event.usage.input_tokens !== undefined ? { inputTokens: delta.inputTokens } : {}),
          ...(delta.cacheReadTokens !== undefined ? { cacheReadTokens: delta.cacheReadTokens } : {}),
          ...(delta.cacheWriteTokens !== undefined ? { cacheWriteTokens: delta.cacheWriteTokens } : {}),
        }
        break
      }
      default:
        break
    }
  }
  const toolCalls: ToolCall[] = [...tools.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, t]) => ({ id: t.id, name: t.name, args: parseToolArgs(t.json) }))
  yield { type: 'done', response: { content, toolCalls, usage, stopReason: anthropicStopReason(stop) } }
}
