import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import { fromAiSdkResult } from './from-ai-sdk-result.ts'

/**
 * Turns AI SDK stream parts into text chunks and a final `done` chunk. Complete `tool-call` parts
 * become tool calls (their `tool-input-*` deltas are not needed); an `error` part is thrown.
 */
export async function* aiSdkStreamChunks(stream: ReadableStream<LanguageModelV4StreamPart>): AsyncGenerator<StreamChunk> {
  const reader = stream.getReader()
  const content: LanguageModelV4Content[] = []
  let text = ''
  let finish: LanguageModelV4FinishReason | undefined
  let usage: LanguageModelV4Usage | undefined
  try {
    for (;;) {
      const { done, value: part } = await reader.read()
      if (done) break
      switch (part.type) {
        case 'text-delta':
          if (part.delta !== '') {
            text += part.delta
            yield { type: 'text', text: part.delta }
          }
          break
        case 'tool-call':
          content.push(part)
          break
        case 'finish':
          finish = part.finishReason
          usage = part.usage
          break
        case 'error':
          throw part.error
        default:
          break
      }
    }
  } finally {
    // Stopping early (an abort, a consumer that leaves) cancels the model's stream.
    await reader.cancel().catch(() => undefined)
    reader.releaseLock()
  }
  yield { type: 'done', response: fromAiSdkResult([{ type: 'text', text }, ...content], finish, usage) }
}
