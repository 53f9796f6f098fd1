import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { Usage } from '../../model/usage.ts'
import { parseToolArgs } from '../adapter-kit/parse-tool-args.ts'
import { fromOpenAIUsage, openAIStopReason } from './from-openai-completion.ts'

interface PartialCall {
  id: string
  name: string
  args: string
}

/**
 * Turns `chat.completion.chunk` events into text chunks and a final `done` chunk carrying the
 * assembled response. Tool-call argument fragments are joined per `index` and parsed at the end.
 */
export async function* openAIStreamChunks(events: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<StreamChunk> {
  let content = ''
  let refusal = ''
  let finish: string | null | undefined
  let usage: Usage = { inputTokens: 0, outputTokens: 0 }
  const calls = new Map<number, PartialCall>()
  for await (const event of events) {
    if (event.usage !== null && event.usage !== undefined) usage = fromOpenAIUsage(event.usage)
    const choice = event.choices?.[0]
    if (choice === undefined) continue
    const delta = choice.delta
    if (typeof delta?.content === 'string' && delta.content !== '') {
      content += delta.content
      yield { type: 'text', text: delta.content }
    }
    if (typeof delta?.refusal === 'string') refusal += delta.refusal
    for (const d of delta?.tool_calls ?? []) {
      const call = calls.get(d.index) ?? { id: '', name: '', args: '' }
      if (d.id !== undefined) call.id = d.id
      if (d.function?.name !== undefined) call.name += d.function.name
      if (d.function?.arguments !== undefined) call.args += d.function.arguments
      calls.set(d.index, call)
    }
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) finish = choice.finish_reason
  }
  const toolCalls: ToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, c]) => ({ id: c.id, name: c.name, args: parseToolArgs(c.args) }))
  yield {
    type: 'done',
    response: { content: content === '' && refusal !== '' ? refusal : content, toolCalls, usage, stopReason: openAIStopReason(finish, refusal) },
  }
}
