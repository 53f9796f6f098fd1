import type { GateEvent } from '../events/event-map.ts'
import type { Message } from '../model/message.ts'
import { errorName, messageOf } from '../model/message-of.ts'

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

// Read with the helpers for anything thrown: a value without a string form, or a throwing getter, cannot break the recorder.
function errorRecord(error: unknown): { readonly name: string; readonly message: string } {
  return { name: errorName(error) ?? typeof error, message: messageOf(error) }
}

/**
 * JSON of a record on one line: cycles, functions, symbols and signals left out, bigints as strings,
 * and the `redacted` keys (at any depth) replaced by `"[redacted]"`.
 */
export function stringifyRecord(record: TraceRecord, redacted: ReadonlySet<string>): string {
  return JSON.stringify(jsonSafe(record, redacted, []))
}

function jsonSafe(value: unknown, redacted: ReadonlySet<string>, ancestors: object[]): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'function' || typeof value === 'symbol') return undefined
  if (typeof value !== 'object' || value === null) return value
  if (ancestors.includes(value)) return '[circular]'
  if (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) return undefined
  if (value instanceof Error) return errorRecord(value)
  ancestors.push(value)
  let out: unknown
  if (Array.isArray(value)) out = value.map((v) => jsonSafe(v, redacted, ancestors) ?? null)
  else {
    const obj: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(value)) obj[key] = redacted.has(key) ? '[redacted]' : jsonSafe(v, redacted, ancestors)
    out = obj
  }
  ancestors.pop()
  return out
}
