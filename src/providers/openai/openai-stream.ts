import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { Usage } from '../../model/usage.ts'
import { isRecord } from '../../model/is-record.ts'
import { malformedResponse, malformedStream } from '../adapter-kit/malformed-response.ts'
import { parseToolArgs } from '../adapter-kit/parse-tool-args.ts'
import { MISSING_USAGE } from '../adapter-kit/token-count.ts'
import { toolCallId } from '../adapter-kit/tool-call-id.ts'
import { fromOpenAIUsage, openAIStopReason, textOfContent } from './from-openai-completion.ts'

/** The key of the call legacy `function_call` deltas build. */
const LEGACY_CALL = 'function_call'

interface PartialCall {
  id: string
  name: string
  args: string
}

/**
 * Turns `chat.completion.chunk` events into text chunks and a final `done` chunk carrying the
 * assembled response. Per tool-call `index`, the id and the function name come whole in the first
 * delta that carries them (later repeats are ignored, never appended), and argument fragments are
 * joined and parsed at the end; a delta after the chunk with the `finish_reason` is no part of the
 * answer (only the usage chunk is). A stream without a single chunk of this format, or cut before
 * its `finish_reason`, is a `malformed-response` error: part of an answer is never a whole one.
 */
export async function* openAIStreamChunks(events: AsyncIterable<ChatCompletionChunk>, provider = 'openai'): AsyncGenerator<StreamChunk> {
  let content = ''
  let refusal = ''
  let finish: string | null | undefined
  // A stream without its usage chunk (a proxy that drops `stream_options`) leaves both counts to estimate.
  let usage: Usage = MISSING_USAGE
  let recognised = false
  const calls = new Map<unknown, PartialCall>()
  let last: unknown
  for await (const event of events) {
    if (!isRecord(event) || !Array.isArray(event.choices)) continue
    recognised = true
    if (event.usage !== null && event.usage !== undefined) usage = fromOpenAIUsage(event.usage)
    // Finished and billed: the answer is whole, whether or not the server goes on to `[DONE]` (one that stays open holds nobody).
    if (finish !== undefined && usage !== MISSING_USAGE) break
    const first: unknown = event.choices[0]
    // After the finish chunk only the usage chunk belongs to the answer: a delta sent after it is no part of it.
    if (!isRecord(first) || finish !== undefined) continue
    const choice = first as unknown as ChatCompletionChunk.Choice
    const delta = choice.delta
    const text = textOfContent(delta?.content)
    if (text !== '') {
      content += text
      yield { type: 'text', text }
    }
    if (typeof delta?.refusal === 'string') refusal += delta.refusal
    const deltas: unknown = delta?.tool_calls
    for (const d of Array.isArray(deltas) ? (deltas as unknown[]) : []) {
      // A delta that is no object is no answer (never a TypeError).
      if (!isRecord(d)) throw malformedResponse(provider, 'tool-call deltas that are objects', d)
      const key = callKey(d, calls, last)
      last = key
      const call = calls.get(key) ?? { id: '', name: '', args: '' }
      const fn: unknown = d['function']
      if (call.id === '' && typeof d['id'] === 'string') call.id = d['id']
      if (call.name === '' && isRecord(fn) && typeof fn['name'] === 'string') call.name = fn['name']
      if (isRecord(fn) && typeof fn['arguments'] === 'string') call.args += fn['arguments']
      calls.set(key, call)
    }
    // A legacy `function_call` delta (a server that streams tools the old way) builds the one call it holds.
    const legacy: unknown = (delta as { function_call?: unknown } | undefined)?.function_call
    if (isRecord(legacy)) {
      const call = calls.get(LEGACY_CALL) ?? { id: '', name: '', args: '' }
      if (call.name === '' && typeof legacy['name'] === 'string') call.name = legacy['name']
      if (typeof legacy['arguments'] === 'string') call.args += legacy['arguments']
      calls.set(LEGACY_CALL, call)
    }
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) finish = choice.finish_reason
    if (finish !== undefined && usage !== MISSING_USAGE) break
  }
  if (!recognised) throw malformedStream(provider, 'a chat.completion.chunk event')
  // A stream cut before its end (a proxy that closes it cleanly) holds part of an answer: never taken as a whole one.
  if (finish === undefined) throw malformedStream(provider, 'a finish_reason (it was cut short)')
  // As in a whole completion, the legacy call counts only in an answer without tool calls.
  if (calls.size > 1) calls.delete(LEGACY_CALL)
  const toolCalls: ToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => (typeof a === 'number' && typeof b === 'number' ? a - b : 0))
    .map(([, c]) => ({ id: toolCallId(c.id), name: c.name, args: parseToolArgs(c.args) }))
  yield {
    type: 'done',
    response: { content: content === '' && refusal !== '' ? refusal : content, toolCalls, usage, stopReason: openAIStopReason(finish, refusal) },
  }
}

/**
 * The call a tool-call delta belongs to: its `index`; for a server that leaves `index` out (parallel
 * calls sent whole, one per delta), a delta with an id no call has yet starts the next call, and
 * one without an id continues the last, so two calls are never joined into one.
 */
function callKey(delta: Record<string, unknown>, calls: ReadonlyMap<unknown, PartialCall>, last: unknown): unknown {
  const index = delta['index']
  if (typeof index === 'number') return index
  const id = delta['id']
  if (typeof id === 'string' && id !== '' && (last === undefined || calls.get(last)?.id !== id)) return `call ${calls.size}`
  return last ?? 'call 0'
}
