import type { Message } from '../model/message.ts'
import type { ModelResponse } from '../model/response.ts'
import { runToolCall, type SettledToolCall, type ToolCallHost } from './tool-call-run.ts'

/**
 * Settles a turn's tool calls one by one, argument retries included. An aborted run stops here
 * with `aborted()`'s error, whatever its tools do with the signal.
 */
export async function settleToolCalls(
  host: ToolCallHost,
  response: ModelResponse,
  messages: readonly Message[],
  aborted: () => Error,
): Promise<SettledToolCall[]> {
  const settled: SettledToolCall[] = []
  for (const call of response.toolCalls) {
    try {
      settled.push(await runToolCall(host, call, messages, response.reasoning))
    } catch (error) {
      if (host.signal?.aborted !== true) throw error
    }
    if (host.signal?.aborted === true) throw aborted()
  }
  return settled
}

/**
 * The persisted messages of a tool turn: the assistant turn with each call's final arguments, then
 * each call's result. The turn keeps the reasoning of the answer it came from (never a retry's):
 * extended thinking needs it back, unchanged, before the tool results.
 */
export function toolTurnMessages(response: ModelResponse, settled: readonly SettledToolCall[]): Message[] {
  const reasoning = response.reasoning
  const turn: Message = {
    role: 'assistant',
    content: response.content,
    toolCalls: settled.map((s) => s.call),
    ...(reasoning !== undefined ? { reasoning } : {}),
  }
  return [turn, ...settled.map((s) => s.result)]
}
