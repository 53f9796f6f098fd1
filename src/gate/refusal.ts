import type { ModelResponse } from '../model/response.ts'

/**
 * Whether an answer is a refusal: stop reason `content_filter` (OpenAI's `content_filter` finish
 * reason or `message.refusal`, Anthropic's `refusal` stop reason, the AI SDK's `content-filter`).
 * A refusal is an answer, not a validation failure: the gate gives it kind `refusal`, keeps its
 * text as the attempt's raw output, never checks it against the schema and never sends schema
 * feedback about it. No built-in rule retries it, so it fails fast unless one of your rules
 * matches `scope.errorKind === 'refusal'`.
 */
export function isRefusal(response: ModelResponse): boolean {
  return response.stopReason === 'content_filter'
}
