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
  const turns: ProgressTurn[] = []
  // The calls of the assistant message before, not answered yet, by id (oldest first): each result answers
  // its own call, even when the model gives two calls of a turn one id, or reuses its ids every turn.
  let open = new Map<string, { readonly events: ProgressEvent[]; readonly at: number }[]>()
  for (let i = start; i < messages.length; i++) {
    const m = messages[i] as Message
    if (m.role === 'tool') {
      const slot = m.toolCallId === undefined ? undefined : open.get(m.toolCallId)?.shift()
      const call = slot?.events[slot.at]
      if (slot !== undefined && call?.kind === 'call' && m.isError === true) slot.events[slot.at] = { ...call, error: m.content }
      continue
    }
    if (m.role !== 'assistant') continue
    const events: ProgressEvent[] = []
    open = new Map()
    if (m.content !== '') events.push({ kind: 'text', text: m.content })
    for (const call of m.toolCalls ?? []) {
      const at = events.push({ kind: 'call', tool: call.name, args: call.args }) - 1
      open.set(call.id, [...(open.get(call.id) ?? []), { events, at }])
    }
    turns.push({ events })
  }
  return turns
}
