import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { ReasoningBlock } from '../../model/reasoning.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import { isRecord } from '../../model/is-record.ts'
import { malformedResponse, malformedStream } from '../adapter-kit/malformed-response.ts'
import { checkToolInput, parseToolArgs } from '../adapter-kit/parse-tool-args.ts'
import { toolCallId } from '../adapter-kit/tool-call-id.ts'
import { anthropicStopReason, fromAnthropicUsage } from './from-anthropic-message.ts'

/** A content block being assembled, by its stream index. */
type PartialBlock =
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown; json: string }
  | { readonly type: 'thinking'; thinking: string; signature: string }
  | { readonly type: 'redacted_thinking'; readonly data: string }

/**
 * Turns Messages API stream events (`message_start`, `content_block_*`, `message_delta`,
 * `message_stop`) into text chunks and a final `done` chunk, at `message_stop` (nothing after it is read). Usage starts from `message_start`
 * (input and cache tokens) and is updated by `message_delta` (output tokens); a count no event
 * reported is `NaN`, for the gate to estimate. Thinking blocks are
 * assembled from `thinking_delta` and `signature_delta` events (redacted ones arrive whole) and kept
 * as the response's reasoning. A stream without `message_start`, or cut before `message_stop`, is a
 * `malformed-response` error: part of an answer is never taken as a whole one.
 */
export async function* anthropicStreamChunks(events: AsyncIterable<RawMessageStreamEvent>, provider = 'anthropic'): AsyncGenerator<StreamChunk> {
  let content = ''
  let stop: string | null | undefined
  let usage = fromAnthropicUsage(undefined)
  let started = false
  let stopped = false
  const blocks = new Map<number, PartialBlock>()
  for await (const event of events) {
    // The answer is whole at `message_stop`: nothing after it belongs to it (the iterator is closed here).
    if (event?.type === 'message_stop') {
      stopped = true
      break
    }
    switch (event?.type) {
      case 'message_start':
        started = true
        usage = fromAnthropicUsage(isRecord(event.message) ? event.message.usage : undefined)
        // Input and cache tokens are known now: a stream aborted later is still billed for them.
        yield { type: 'usage', usage }
        // The answer's output count comes with message_delta; without one it is left to estimate.
        usage = { ...usage, outputTokens: Number.NaN }
        break
      case 'content_block_start': {
        const b = event.content_block
        // An event without its block or delta is no answer (never a TypeError).
        if (!isRecord(b)) throw malformedResponse(provider, 'a content_block_start event with its content_block', event)
        if (b.type === 'tool_use') blocks.set(event.index, { type: 'tool_use', id: b.id, name: b.name, input: b.input, json: '' })
        else if (b.type === 'text' && typeof b.text === 'string' && b.text !== '') {
          // A block that starts with its text (the API starts it empty; a proxy may not) is part of the answer, as the SDK reads it.
          content += b.text
          yield { type: 'text', text: b.text }
        } else if (b.type === 'thinking') blocks.set(event.index, { type: 'thinking', thinking: b.thinking ?? '', signature: b.signature ?? '' })
        else if (b.type === 'redacted_thinking') blocks.set(event.index, { type: 'redacted_thinking', data: b.data })
        break
      }
      case 'content_block_delta': {
        const delta = event.delta
        if (!isRecord(delta)) throw malformedResponse(provider, 'a content_block_delta event with its delta', event)
        const block = blocks.get(event.index)
        if (delta.type === 'text_delta' && typeof delta.text !== 'string') throw malformedResponse(provider, 'a text_delta with a string text', delta)
        if (delta.type === 'text_delta' && delta.text !== '') {
          content += delta.text
          yield { type: 'text', text: delta.text }
        } else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') block.json += delta.partial_json
        else if (delta.type === 'thinking_delta' && block?.type === 'thinking') block.thinking += delta.thinking
        else if (delta.type === 'signature_delta' && block?.type === 'thinking') block.signature += delta.signature
        break
      }
      case 'message_delta': {
        stop = event.delta?.stop_reason ?? stop
        const reported: unknown = event.usage
        const delta = fromAnthropicUsage(isRecord(reported) ? reported : undefined)
        usage = {
          ...usage,
          outputTokens: delta.outputTokens,
          ...(isRecord(reported) && reported['input_tokens'] !== null && reported['input_tokens'] !== undefined ? { inputTokens: delta.inputTokens } : {}),
          ...(delta.cacheReadTokens !== undefined ? { cacheReadTokens: delta.cacheReadTokens } : {}),
          ...(delta.cacheWriteTokens !== undefined ? { cacheWriteTokens: delta.cacheWriteTokens } : {}),
        }
        break
      }
      default:
        break
    }
  }
  if (!started) throw malformedStream(provider, 'a message_start event')
  // A stream cut before its end (a proxy that closes it cleanly) holds part of an answer: never taken as a whole one.
  if (!stopped) throw malformedStream(provider, 'its message_stop event (it was cut short)')
  const toolCalls: ToolCall[] = []
  const reasoning: ReasoningBlock[] = []
  for (const [, b] of [...blocks.entries()].sort(([a], [z]) => a - z)) {
    // Without input deltas, the input the block started with is the call's (as the SDK's own accumulator reads it).
    if (b.type === 'tool_use')
      toolCalls.push({ id: toolCallId(b.id), name: b.name, args: b.json === '' && isRecord(b.input) ? checkToolInput(b.input) : parseToolArgs(b.json) })
    else if (b.type === 'thinking') reasoning.push({ text: b.thinking, signature: b.signature })
    else reasoning.push({ text: '', redactedData: b.data })
  }
  const response: ModelResponse = { content, toolCalls, usage, stopReason: anthropicStopReason(stop) }
  yield { type: 'done', response: reasoning.length > 0 ? { ...response, reasoning } : response }
}
