import type { ModelResponse } from './response.ts'

/** One piece of a streamed model answer. The last chunk is always `done` with the assembled response. */
export type StreamChunk =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'done'; readonly response: ModelResponse }
