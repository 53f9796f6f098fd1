import { jsonTextOf } from '../model/json-text-of.ts'
import type { Message } from '../model/message.ts'
import type { ModelResponse } from '../model/response.ts'
import { finishReason } from './semconv.ts'

type Part =
  | { readonly type: 'text'; readonly content: string }
  | { readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly arguments: unknown }
  | { readonly type: 'tool_call_response'; readonly id: string; readonly response: string }

/**
 * `gen_ai.input.messages` as the conventions shape it (role and parts, JSON): the system prompt
 * first, then the messages; ephemeral retry messages keep their flag, so a trace shows what was
 * never persisted.
 */
export function inputMessages(system: string | undefined, messages: readonly Message[]): string {
  const out: unknown[] = []
  if (system !== undefined) out.push({ role: 'system', parts: [{ type: 'text', content: system }] })
  for (const m of messages) {
    const parts: Part[] = []
    if (m.role === 'tool') parts.push({ type: 'tool_call_response', id: m.toolCallId ?? '', response: m.content })
    else if (m.content !== '') parts.push({ type: 'text', content: m.content })
    for (const c of m.toolCalls ?? []) parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.args })
    out.push(m.ephemeral === true ? { role: m.role, parts, ephemeral: true } : { role: m.role, parts })
  }
  return JSON.stringify(out)
}

/** `gen_ai.output.messages`: the response as one assistant message with its finish reason. */
export function outputMessages(response: ModelResponse): string {
  const parts: Part[] = []
  if (response.content !== '') parts.push({ type: 'text', content: response.content })
  for (const c of response.toolCalls) parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.args })
  return JSON.stringify([{ role: 'assistant', parts, finish_reason: finishReason(response.stopReason) }])
}

/** A value as a span attribute string: a string as it is, anything else as {@link jsonTextOf} writes it (never throws). */
export function jsonAttribute(value: unknown): string {
  return typeof value === 'string' ? value : jsonTextOf(value)
}
