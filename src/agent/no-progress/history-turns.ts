import type { Message } from '../../model/message.ts'
import type { ProgressEvent, ProgressTurn } from './progress-turn.ts'

/**
 * The model turns of a conversation since its last user message, as the detector reads them: each
 * assistant message with its text and its calls, each call with the error its tool result carried.
 * A host that only sees the conversation (a middleware reading the prompt) knows no turn's usage.
 * A user message is new input: what came before it is not the current loop.
 */
export function historyTurns(messages: readonly Message[]): ProgressTurn[] {
  let start = 0
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user' && messages[i]?.ephemeral !== true) {
      start = i + 1
      break
    }
  }
  const errors = new Map<string, string | undefined>()
  for (let i = start; i < messages.length; i++) {
    const m = messages[i] as Message
    if (m.role === 'tool' && m.toolCallId !== undefined) errors.set(m.toolCallId, m.isError === true ? m.content : undefined)
  }
  const turns: ProgressTurn[] = []
  for (let i = start; i < messages.length; i++) {
    const m = messages[i] as Message
    if (m.role !== 'assistant') continue
    const events: ProgressEvent[] = []
    if (m.content !== '') events.push({ kind: 'text', text: m.content })
    for (const call of m.toolCalls ?? []) {
      const error = errors.get(call.id)
      events.push(error === undefined ? { kind: 'call', tool: call.name, args: call.args } : { kind: 'call', tool: call.name, args: call.args, error })
    }
    turns.push({ events })
  }
  return turns
}
