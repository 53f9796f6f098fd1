import type { ChatCompletion } from 'openai/resources/chat/completions'
import type { CompletionUsage } from 'openai/resources/completions'
import type { ModelResponse, StopReason } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { Usage } from '../../model/usage.ts'
import { isRecord } from '../../model/is-record.ts'
import { malformedResponse } from '../adapter-kit/malformed-response.ts'
import { parseToolArgs } from '../adapter-kit/parse-tool-args.ts'
import { MISSING_USAGE, optionalTokenCount, tokenCount } from '../adapter-kit/token-count.ts'
import { toolCallId } from '../adapter-kit/tool-call-id.ts'

/**
 * Maps a Chat Completion to a provider-neutral response (first choice). Whatever is not a
 * completion with a choice (an HTML page, an empty body, another JSON shape) is a
 * `malformed-response` error. A legacy `message.function_call` is read as the one tool call it
 * is; content sent as an array of parts (OpenAI-compatible servers such as Mistral's) is the text
 * of its `text` parts. A refusal keeps its text as the content and reads as stop reason
 * `content_filter`, which the gate classifies as kind `refusal`.
 */
export function fromOpenAICompletion(completion: ChatCompletion, provider: string): ModelResponse {
  const choice: unknown = isRecord(completion) && Array.isArray(completion.choices) ? completion.choices[0] : undefined
  if (!isRecord(choice) || !isRecord(choice['message'])) throw malformedResponse(provider, 'a chat.completion with a choice', completion)
  const { message, finish_reason: finish } = choice as unknown as ChatCompletion.Choice
  const toolCalls: ToolCall[] = []
  for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : []) {
    // A call that is no object, or a function call without its function, is no answer (never a TypeError);
    // one without its `type` (a proxy that leaves it out) is a function call when it holds a function.
    const type: unknown = isRecord(call) ? (call['type'] ?? 'function') : undefined
    if (!isRecord(call) || (type === 'function' && !isRecord(call['function'])))
      throw malformedResponse(provider, 'tool calls that are objects with a function', call)
    const { id, function: fn } = call as { id?: unknown; function: { name: string; arguments?: unknown } }
    if (type === 'function') toolCalls.push({ id: toolCallId(id), name: fn.name, args: parseToolArgs(fn.arguments) })
  }
  // A legacy `function_call` (finish_reason `function_call`, from a server that answers tools the old way) is the one call it holds.
  const legacy: unknown = (message as { function_call?: unknown }).function_call
  if (toolCalls.length === 0 && isRecord(legacy) && typeof legacy['name'] === 'string')
    toolCalls.push({ id: toolCallId(undefined), name: legacy['name'], args: parseToolArgs(legacy['arguments']) })
  const refusal = typeof message.refusal === 'string' && message.refusal !== '' ? message.refusal : undefined
  return {
    content: textOfContent(message.content) || (refusal ?? ''),
    toolCalls,
    usage: fromOpenAIUsage(completion.usage),
    stopReason: openAIStopReason(finish, refusal),
  }
}

/**
 * Usage with the same meaning for every adapter: `inputTokens` are the uncached input tokens and
 * `cacheReadTokens` the cached ones (OpenAI counts cached tokens inside `prompt_tokens`). A count
 * the answer lacks, or reports as no count (a string, a negative number), is `NaN`, never 0: the
 * gate estimates it and marks the usage `estimated`.
 */
export function fromOpenAIUsage(usage: CompletionUsage | null | undefined): Usage {
  if (!isRecord(usage)) return MISSING_USAGE
  const details: unknown = usage.prompt_tokens_details
  const cached = (isRecord(details) ? optionalTokenCount(details['cached_tokens']) : undefined) ?? 0
  const written = isRecord(details) ? optionalTokenCount(details['cache_write_tokens']) : undefined
  const prompt = tokenCount(usage.prompt_tokens)
  return {
    // Cached tokens that cannot be read are left inside the input count: counted, at the input price.
    inputTokens: Number.isNaN(cached) ? prompt : Math.max(0, prompt - cached),
    outputTokens: tokenCount(usage.completion_tokens),
    ...(cached > 0 ? { cacheReadTokens: cached } : {}),
    ...(written !== undefined && !(written <= 0) ? { cacheWriteTokens: written } : {}),
  }
}

/** Maps `finish_reason` (a refusal reads as a content filter). */
export function openAIStopReason(reason: string | null | undefined, refusal?: string | null): StopReason {
  if (refusal !== null && refusal !== undefined && refusal !== '') return 'content_filter'
  switch (reason) {
    case 'stop':
      return 'end'
    case 'length':
      return 'max_tokens'
    case 'tool_calls':
    case 'function_call':
      return 'tool_use'
    case 'content_filter':
      return 'content_filter'
    default:
      return 'other'
  }
}

/**
 * The text of a message's (or a delta's) `content`: a string as it is, an array of parts (what
 * OpenAI-compatible servers such as Mistral's answer) as the text of its `text` parts joined, anything else none.
 */
export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  let text = ''
  for (const part of content as unknown[]) if (isRecord(part) && part['type'] === 'text' && typeof part['text'] === 'string') text += part['text']
  return text
}
