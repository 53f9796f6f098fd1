import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4Usage } from '@ai-sdk/provider'
import type { ReasoningBlock } from '../../model/reasoning.ts'
import type { ModelResponse, StopReason } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { AiSdkContentPart, AiSdkFinishReason, AiSdkUsage } from './ai-sdk-shapes.ts'
import type { Usage } from '../../model/usage.ts'
import { isRecord } from '../../model/is-record.ts'
import { malformedResponse, malformedStream } from '../adapter-kit/malformed-response.ts'
import { checkToolInput, parseToolArgs } from '../adapter-kit/parse-tool-args.ts'
import { MISSING_USAGE, optionalTokenCount, tokenCount } from '../adapter-kit/token-count.ts'
import { toolCallId } from '../adapter-kit/tool-call-id.ts'

/**
 * Maps AI SDK content parts, finish reason and usage to a provider-neutral response; `reasoning`
 * parts become {@link ReasoningBlock}s with their provider metadata (signatures included). Content
 * that is not an array of parts, or an answer whose finish reason is `interrupted` (the provider's
 * stream ended without its completion signal, which the AI SDK's providers report instead of failing),
 * is a `malformed-response` error: part of an answer is never taken as a whole one.
 */
export function fromAiSdkResult(
  content: readonly AiSdkContentPart[],
  finishReason: AiSdkFinishReason | undefined,
  usage: AiSdkUsage | undefined,
  provider = 'ai-sdk',
): ModelResponse {
  if (!Array.isArray(content) || !content.every((p) => isRecord(p) && typeof p['type'] === 'string')) {
    throw malformedResponse(provider, 'a result with an array of content parts', content)
  }
  // A text part whose text is no string (`null`) would read as the answer "null".
  const textless = content.find((p: Record<string, unknown>) => p['type'] === 'text' && typeof p['text'] !== 'string')
  if (textless !== undefined) throw malformedResponse(provider, 'text parts with a string text', textless)
  if (unifiedOf(finishReason) === 'interrupted') throw malformedStream(provider, 'its completion signal (finish reason "interrupted": it was cut short)')
  // The parts read below have the same fields in v3 and v4.
  const parts = content as readonly LanguageModelV4Content[]
  let text = ''
  const toolCalls: ToolCall[] = []
  const reasoning: ReasoningBlock[] = []
  for (const part of parts) {
    if (part.type === 'text') text += part.text
    else if (part.type === 'tool-call' && part.providerExecuted !== true) {
      const args = typeof part.input === 'string' ? parseToolArgs(part.input) : checkToolInput(part.input)
      toolCalls.push({ id: toolCallId(part.toolCallId), name: part.toolName, args })
    } else if (part.type === 'reasoning') reasoning.push(fromAiSdkReasoning(part.text, part.providerMetadata))
  }
  const response: ModelResponse = { content: text, toolCalls, usage: fromAiSdkUsage(usage), stopReason: aiSdkStopReason(finishReason) }
  return reasoning.length > 0 ? { ...response, reasoning } : response
}

/** A `doGenerate` result as a provider-neutral response; anything else is a `malformed-response` error. */
export function fromAiSdkGenerateResult(result: unknown, provider: string): ModelResponse {
  if (!isRecord(result) || !Array.isArray(result['content'])) throw malformedResponse(provider, 'a generate result with content parts', result)
  const r = result as { content: LanguageModelV4Content[]; finishReason?: LanguageModelV4FinishReason; usage?: LanguageModelV4Usage }
  return fromAiSdkResult(r.content, r.finishReason, r.usage, provider)
}

/** A reasoning part as a block; Anthropic's signature or redacted data is lifted out of the metadata. */
function fromAiSdkReasoning(text: string, metadata: ReasoningBlock['providerMetadata'] | undefined): ReasoningBlock {
  const anthropic = metadata?.['anthropic']
  const signature = anthropic?.['signature']
  const redacted = anthropic?.['redactedData']
  return {
    text,
    ...(typeof signature === 'string' ? { signature } : {}),
    ...(typeof redacted === 'string' ? { redactedData: redacted } : {}),
    ...(metadata !== undefined ? { providerMetadata: metadata } : {}),
  }
}

/**
 * Usage: `inputTokens` are the uncached input tokens, cache reads and writes apart. Reads the v3/v4
 * nested shape and the flat numbers of older specifications. A count the result lacks (AI SDK
 * providers leave unknown counts `undefined`), or reports as no count, is `NaN`, never 0: the gate
 * estimates it and marks the usage `estimated`.
 */
export function fromAiSdkUsage(usage: AiSdkUsage | undefined): Usage {
  if (!isRecord(usage)) return MISSING_USAGE
  const u: Record<string, unknown> = usage
  const input = u['inputTokens']
  const output = u['outputTokens']
  if (!isRecord(input) && !isRecord(output)) {
    // The flat numbers of the v2 specification, where `inputTokens` includes the cached ones.
    const cached = optionalTokenCount(u['cachedInputTokens']) ?? 0
    const total = tokenCount(input)
    return {
      inputTokens: Number.isNaN(cached) ? total : Math.max(0, total - cached),
      outputTokens: tokenCount(output),
      ...(cached > 0 ? { cacheReadTokens: cached } : {}),
    }
  }
  const counts = isRecord(input) ? input : {}
  const read = optionalTokenCount(counts['cacheRead'])
  const write = optionalTokenCount(counts['cacheWrite'])
  const noCache = optionalTokenCount(counts['noCache']) ?? Math.max(0, tokenCount(counts['total']) - (read ?? 0) - (write ?? 0))
  return {
    inputTokens: noCache,
    outputTokens: isRecord(output) ? tokenCount(output['total']) : Number.NaN,
    ...(read !== undefined ? { cacheReadTokens: read } : {}),
    ...(write !== undefined ? { cacheWriteTokens: write } : {}),
  }
}

/**
 * Maps the unified finish reason (a plain string in older specifications); `content-filter` reads as
 * `content_filter`. Anthropic's raw `pause_turn` (a turn paused before its end, which
 * `@ai-sdk/anthropic` calls `stop`) reads as `max_tokens`: an answer not finished is never taken as complete.
 */
export function aiSdkStopReason(reason: AiSdkFinishReason | undefined): StopReason {
  if (typeof reason === 'object' && reason?.raw === 'pause_turn') return 'max_tokens'
  switch (unifiedOf(reason)) {
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

function unifiedOf(reason: AiSdkFinishReason | undefined): string | undefined {
  return typeof reason === 'string' ? reason : reason?.unified
}
