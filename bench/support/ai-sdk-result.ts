import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider'
import type { Step } from '../scenarios.ts'

const usage = {
  inputTokens: { total: 20, noCache: 20, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
}

/** A scripted step as the AI SDK mock model's generate result (both AI SDK contenders use it). */
export function toAiSdkResult(step: Step): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'text', text: step.kind === 'text' ? step.text : '' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  }
}
