import { simulateReadableStream } from 'ai/test'

// Answers for the AI SDK's own MockLanguageModelV4: 10 input and 5 output tokens per call.
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/** A `doGenerate` answer carrying `text`. */
export const generated = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: 'stop' },
  usage,
  warnings: [],
})

/** A `doStream` answer streaming `text` in 6-character deltas. */
export const streamed = (text: string) => ({
  stream: simulateReadableStream({
    chunks: [
      { type: 'text-start' as const, id: '1' },
      ...[...text.matchAll(/.{1,6}/gs)].map((m) => ({ type: 'text-delta' as const, id: '1', delta: m[0] })),
      { type: 'text-end' as const, id: '1' },
      { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage },
    ],
  }),
})
