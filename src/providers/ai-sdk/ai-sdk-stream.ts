import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import { malformedResponse, malformedStream } from '../adapter-kit/malformed-response.ts'
import { fromAiSdkResult } from './from-ai-sdk-result.ts'

type ProviderMetadata = NonNullable<LanguageModelV4Content & { type: 'reasoning' }>['providerMetadata']

/**
 * Turns AI SDK stream parts into text chunks and a final `done` chunk. Complete `tool-call` parts
 * become tool calls (their `tool-input-*` deltas are not needed); `reasoning-*` parts are joined per
 * id, their provider metadata (Anthropic's signature arrives on a delta) merged; an `error` part is
 * thrown. The answer ends at the `finish` part (nothing after it is read: the model's stream is
 * cancelled there); a stream that ends without one is a `malformed-response` error.
 */
export async function* aiSdkStreamChunks(stream: ReadableStream<LanguageModelV4StreamPart>, provider = 'ai-sdk'): AsyncGenerator<StreamChunk> {
  if (typeof (stream as Partial<ReadableStream> | null | undefined)?.getReader !== 'function')
    throw malformedResponse(provider, 'a stream result with a ReadableStream', stream)
  const reader = stream.getReader()
  const content: LanguageModelV4Content[] = []
  const reasoning = new Map<string, { text: string; providerMetadata: ProviderMetadata }>()
  let text = ''
  let finished = false
  let finish: LanguageModelV4FinishReason | undefined
  let usage: LanguageModelV4Usage | undefined
  try {
    // The answer is whole at its `finish` part: nothing after it belongs to it, and a stream left open after it holds nobody.
    while (!finished) {
      const { done, value: part } = await reader.read()
      if (done) break
      switch (part?.type) {
        case 'text-delta':
          if (part.delta !== '') {
            text += part.delta
            yield { type: 'text', text: part.delta }
          }
          break
        case 'tool-call':
          content.push(part)
          break
        case 'reasoning-start':
        case 'reasoning-delta':
        case 'reasoning-end': {
          const block = reasoning.get(part.id) ?? { text: '', providerMetadata: undefined }
          if (part.type === 'reasoning-delta') block.text += part.delta
          if (part.providerMetadata !== undefined) block.providerMetadata = mergeMetadata(block.providerMetadata, part.providerMetadata)
          reasoning.set(part.id, block)
          break
        }
        case 'finish':
          finished = true
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
  if (!finished) throw malformedStream(provider, 'a finish part')
  const thoughts: LanguageModelV4Content[] = [...reasoning.values()].map((r) => ({
    type: 'reasoning',
    text: r.text,
    ...(r.providerMetadata !== undefined ? { providerMetadata: r.providerMetadata } : {}),
  }))
  const parts: LanguageModelV4Content[] = [...thoughts, { type: 'text', text }, ...content]
  yield { type: 'done', response: fromAiSdkResult(parts, finish, usage, provider) }
}

function mergeMetadata(a: ProviderMetadata, b: NonNullable<ProviderMetadata>): NonNullable<ProviderMetadata> {
  if (a === undefined) return b
  const merged: Record<string, Record<string, unknown>> = { ...a }
  for (const [key, value] of Object.entries(b)) merged[key] = { ...merged[key], ...value }
  return merged as NonNullable<ProviderMetadata>
}
