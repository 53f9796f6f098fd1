import type { GateEvent } from '../events/event-map.ts'
import type { Message } from '../model/message.ts'
import { errorRecord } from './json-safe.ts'

/**
 * One line of a trace file: an event as `events$` delivers it (`type`, `runId`, its payload), made
 * JSON-safe, with the time it was recorded (`ts`, ms since the epoch). What is large or not data is
 * reduced: an attempt's request to its model, message count and ephemeral tail, a response to its
 * content, tool calls and stop reason, an error to its name and message.
 */
export type TraceRecord = { readonly ts: number; readonly type: GateEvent['type']; readonly runId: string } & Readonly<Record<string, unknown>>

/** The record of an event (see {@link TraceRecord}). */
export function toTraceRecord(event: GateEvent, ts: number): TraceRecord {
  const out: Record<string, unknown> = { ts }
  for (const [key, value] of Object.entries(event)) out[key] = value
  switch (event.type) {
    case 'attempt_start': {
      const { request } = event
      out.request = { model: request.model, messages: request.messages.length, tail: request.messages.filter((m) => m.ephemeral === true).map(messageRecord) }
      break
    }
    case 'attempt_end':
      out.response =
        event.response === undefined
          ? undefined
          : { content: event.response.content, toolCalls: event.response.toolCalls, stopReason: event.response.stopReason }
      break
    case 'retry':
      out.tail = event.tail.map(messageRecord)
      break
    default:
      break
  }
  if ('error' in event && event.error !== undefined && typeof event.error !== 'string') out.error = errorRecord(event.error)
  return out as TraceRecord
}

function messageRecord(m: Message): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role, content: m.content }
  if (m.toolCalls !== undefined) out.toolCalls = m.toolCalls
  if (m.toolCallId !== undefined) out.toolCallId = m.toolCallId
  if (m.isError === true) out.isError = true
  if (m.ephemeral === true) out.ephemeral = true
  return out
}
