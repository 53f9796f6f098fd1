import type { LanguageModelV4Usage } from '@ai-sdk/provider'
import type { Usage } from '../../model/usage.ts'

/** The gate's usage (every attempt, failed ones included) in the AI SDK's shape. */
export function toV4Usage(usage: Usage): LanguageModelV4Usage {
  const read = usage.cacheReadTokens ?? 0
  const write = usage.cacheWriteTokens ?? 0
  return {
    inputTokens: {
      total: usage.inputTokens + read + write,
      noCache: usage.inputTokens,
      cacheRead: usage.cacheReadTokens,
      cacheWrite: usage.cacheWriteTokens,
    },
    outputTokens: { total: usage.outputTokens, text: usage.outputTokens, reasoning: undefined },
  }
}
