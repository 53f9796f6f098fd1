import type { Message } from '../../model/message.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import { looksLikeFeedback } from './read-feedback.ts'

/** A conversation as the simulator understands it. */
export interface Conversation {
  /** The messages without the gate's retry tail. */
  readonly base: readonly Message[]
  /** Present when the request is a retry of a final answer: the previous raw output and the feedback. */
  readonly answerRetry?: { readonly previous: string; readonly feedback: string }
  /** Present when the request is a retry of a tool call: the failing call and the error prose. */
  readonly toolRetry?: { readonly call: ToolCall; readonly feedback: string }
}

/**
 * Splits off the gate's retry tail: the trailing run of `ephemeral` messages when it holds an
 * assistant message followed by a user message (final answer) or by an error tool result (tool
 * arguments). When the flags were stripped, a last user message that reads like feedback right after
 * an assistant message counts too.
 */
export function readConversation(messages: readonly Message[]): Conversation {
  let start = messages.length
  while (start > 0 && messages[start - 1]?.ephemeral === true) start--
  const tail = messages.slice(start)
  const assistantAt = tail.findLastIndex((m) => m.role === 'assistant')
  const after = assistantAt < 0 ? [] : tail.slice(assistantAt + 1)
  const assistant = tail[assistantAt]
  if (assistant !== undefined) {
    const feedback = after.filter((m) => m.role === 'user').map((m) => m.content)
    if (feedback.length > 0) return { base: messages.slice(0, start), answerRetry: { previous: assistant.content, feedback: feedback.join('\n') } }
    const toolError = after.find((m) => m.role === 'tool' && m.isError === true)
    const call = assistant.toolCalls?.find((c) => c.id === toolError?.toolCallId) ?? assistant.toolCalls?.[0]
    if (toolError !== undefined && call !== undefined) return { base: messages.slice(0, start), toolRetry: { call, feedback: toolError.content } }
  }
  // A tail with no previous answer (the last call failed before answering) is a fresh first attempt.
  if (start < messages.length && start > 0) return { base: messages.slice(0, start) }
  const last = messages[messages.length - 1]
  const beforeLast = messages[messages.length - 2]
  if (last?.role === 'user' && beforeLast?.role === 'assistant' && looksLikeFeedback(last.content)) {
    return { base: messages.slice(0, -2), answerRetry: { previous: beforeLast.content, feedback: last.content } }
  }
  return { base: messages }
}

/** The last user message of the base conversation (the question being answered). */
export function lastUserMessage(base: readonly Message[]): string {
  return base.findLast((m) => m.role === 'user')?.content ?? ''
}

/** Whether a tool has already answered since the user last spoke (then the model answers instead of calling again). */
export function hasToolResultSinceLastUser(base: readonly Message[]): boolean {
  const lastUser = base.findLastIndex((m) => m.role === 'user')
  return base.slice(lastUser + 1).some((m) => m.role === 'tool')
}

/** How many tool calls the conversation already holds, to number the next one. */
export function countToolCalls(messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + (m.toolCalls?.length ?? 0), 0)
}
