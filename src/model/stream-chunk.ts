import type { ModelResponse } from './response.ts'
import type { Usage } from './usage.ts'

/** One piece of a streamed model answer. The last chunk is always `done` with the assembled response. */
export type StreamChunk =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'done'; readonly response: ModelResponse }
  /** Usage known before the end (e.g. input and cache tokens at the start), so an aborted stream is still billed. */
  | { readonly type: 'usage'; readonly usage: Usage }
