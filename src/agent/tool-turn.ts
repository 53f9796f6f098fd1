import type { Message } from '../model/message.ts'
import type { ModelResponse } from '../model/response.ts'
import type { SettledToolCall } from './tool-call-run.ts'

/**
 * The persisted messages of a tool turn: the assistant turn with each call's final arguments, then
 * each call's result. The turn keeps the reasoning of the answer it came from (never a retry's):
 * extended thinking needs it back, unchanged, before the tool results.
 */
export function toolTurnMessages(response: ModelResponse, settled: readonly SettledToolCall[]): Message[] {
  const reasoning = response.reasoning
  const turn: Message = { role: 'assistant', content: response.content, toolCalls: settled.map((s) => s.call), ...(reasoning !== undefined ? { reasoning } : {}) }
  return [turn, ...settled.map((s) => s.result)]
}
