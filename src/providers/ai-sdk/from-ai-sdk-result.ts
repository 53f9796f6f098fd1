import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4Usage } from '@ai-sdk/provider'
import type { ModelResponse, StopReason } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { Usage } from '../../model/usage.ts'
import { parseToolArgs } from '../adapter-kit/parse-tool-args.ts'

/** Maps AI SDK content parts, finish reason and usage to a provider-neutral response. */
export function fromAiSdkResult(content: readonly LanguageModelV4Content[], finishReason: LanguageModelV4FinishReason | string | undefined, usage: LanguageModelV4Usage | undefined): ModelResponse {
  let text = ''
  const toolCalls: ToolCall[] = []
  for (const part of content) {
    if (part.type === 'text') text += part.text
    else if (part.type === 'tool-call' && part.providerExecuted !== true) toolCalls.push({ id: part.toolCallId, name: part.toolName, args: parseToolArgs(part.input) })
  }
  return { content: text, toolCalls, usage: fromAiSdkUsage(usage), stopReason: aiSdkStopReason(finishReason) }
}

/** Usage: `inputTokens` are the uncached input tokens, cache reads and writes apart. */
export function fromAiSdkUsage(usage: LanguageModelV4Usage | undefined): Usage {
  if (usage === undefined) return { inputTokens: 0, outputTokens: 0 }
  const read = usage.inputTokens?.cacheRead
  const write = usage.inputTokens?.cacheWrite
  const total = usage.inputTokens?.total ?? 0
  const noCache = usage.inputTokens?.noCache ?? Math.max(0, total - (read ?? 0) - (write ?? 0))
  return {
    inputTokens: noCache,
    outputTokens: usage.outputTokens?.total ?? 0,
    ...(read !== undefined ? { cacheReadTokens: read } : {}),
    ...(write !== undefined ? { cacheWriteTokens: write } : {}),
  }
}

/** Maps the unified finish reason (a plain string in older specifications). */
export function aiSdkStopReason(reason: LanguageModelV4FinishReason | string | undefined): StopReason {
  const unified = typeof reason === 'string' ? reason : reason?.unified
  switch (unified) {
    case 'stop':
      return 'end'
    case 'length':
      return 'max_tokens'
    case 'tool-calls':
      return 'tool_use'
    case 'content-filter':
      return 'content_filter'
    default:
      return 'other'
  }
}
