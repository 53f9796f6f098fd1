import type { LanguageModelV4FinishReason, LanguageModelV4GenerateResult, LanguageModelV4StreamResult } from '@ai-sdk/provider'
import type { ModelResponse, StopReason } from '../../model/response.ts'
import type { Usage } from '../../model/usage.ts'
import { answerText } from './answer-content.ts'
import type { NoObjectGeneratedFields } from './give-up-error.ts'
import { toV4Usage } from './v4-usage.ts'

/** A prose reply that stands (`llm_gave_up`): the model's own result when it came from the model, its text otherwise. */
export function answerResult(answer: ModelResponse, raw: LanguageModelV4GenerateResult | undefined, usage: Usage): LanguageModelV4GenerateResult {
  if (raw !== undefined) return { ...raw, content: answerText(raw.content, answer.content), usage: toV4Usage(usage) }
  return { content: [{ type: 'text', text: answer.content }], finishReason: toFinishReason(answer.stopReason), usage: toV4Usage(usage), warnings: [] }
}

/** What a give-up error tells of the model's last answer: its text, finish reason and response. */
export function lastAnswer(result: LanguageModelV4GenerateResult | undefined): NoObjectGeneratedFields | undefined {
  // A model that answered no result at all (null, a number) left nothing to tell: the gate's typed error says why.
  if (typeof result !== 'object' || result === null) return undefined
  const text = Array.isArray(result.content) ? result.content.flatMap((p) => (isTextPart(p) ? [p.text] : [])).join('') : undefined
  const finish = result.finishReason as LanguageModelV4FinishReason | string | undefined
  return { text, finishReason: typeof finish === 'string' ? finish : finish?.unified, response: result.response }
}

/** The stream of a `doStream` result: a model that resolved to no result at all (null) has none, which the stream reader types as a malformed answer. */
export function streamOf(result: LanguageModelV4StreamResult | null | undefined): LanguageModelV4StreamResult['stream'] {
  return (result as Partial<LanguageModelV4StreamResult> | null | undefined)?.stream as LanguageModelV4StreamResult['stream']
}

function isTextPart(part: unknown): part is { readonly type: 'text'; readonly text: string } {
  return typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string'
}

/** The gate's stop reason as the AI SDK's finish reason. */
export function toFinishReason(stop: StopReason): LanguageModelV4FinishReason {
  const unified = ({ end: 'stop', max_tokens: 'length', tool_use: 'tool-calls', content_filter: 'content-filter', other: 'other' } as const)[stop]
  return { unified, raw: undefined }
}
