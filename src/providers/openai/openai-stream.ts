import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { Usage } from '../../model/usage.ts'
import { isRecord } from '../../model/is-record.ts'
import { malformedStream } from '../adapter-kit/malformed-response.ts'
import { parseToolArgs } from '../adapter-kit/parse-tool-args.ts'
import { MISSING_USAGE } from '../adapter-kit/token-count.ts'
import { fromOpenAIUsage, openAIStopReason } from './from-openai-completion.ts'

interface PartialCall {
  id: string
  name: string
  args: string
}

/**
 * Turns `chat.completion.chunk` events into text chunks and a final `done` chunk carrying the
 * assembled response. Per tool-call `index`, the id and the function name come whole in the first
 * delta that carries them (later repeats are ignored, never appended), and argument fragments are
 * joined and parsed at the end. A stream without a single chunk of this format is a
 * `malformed-response` error.
 */
export async function* openAIStreamChunks(events: AsyncIterable<ChatCompletionChunk>, provider = 'openai'): AsyncGenerator<StreamChunk> {
  let content = ''
  let refusal = ''
  let finish: string | null | undefined
  // A stream without its usage chunk (a proxy that drops `stream_options`) leaves both counts to estimate.
  let usage: Usage = MISSING_USAGE
  let recognised = false
  const calls = new Map<number, PartialCall>()
  for await (const event of events) {
    if (!isRecord(event) || !Array.isArray(event.choices)) continue
    recognised = true
    if (event.usage !== null && event.usage !== undefined) usage = fromOpenAIUsage(event.usage)
    const choice = event.choices[0]
    if (choice === undefined) continue
    const delta = choice.delta
    if (typeof delta?.content === 'string' && delta.content !== '') {
      content += delta.content
      yield { type: 'text', text: delta.content }
    }
    if (typeof delta?.refusal === 'string') refusal += delta.refusal
    for (const d of delta?.tool_calls ?? []) {
      const call = calls.get(d.index) ?? { id: '', name: '', args: '' }
      if (call.id === '' && typeof d.id === 'string') call.id = d.id
      if (call.name === '' && typeof d.function?.name === 'string') call.name = d.function.name
      if (typeof d.function?.arguments === 'string') call.args += d.function.arguments
      calls.set(d.index, call)
    }
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) finish = choice.finish_reason
  }
  if (!recognised) throw malformedStream(provider, 'a chat.completion.chunk event')
  const toolCalls: ToolCall[] = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => ({ id: c.id, name: c.name, args: parseToolArgs(c.args) }))
  yield {
    type: 'done',
    response: { content: content === '' && refusal !== '' ? refusal : content, toolCalls, usage, stopReason: openAIStopReason(finish, refusal) },
  }
}
