import type { LanguageModelV3CallOptions } from '@ai-sdk/provider'

// The AI SDK types in the package's public signatures. Only names that `@ai-sdk/provider` 3 (`ai` 6)
// and 4 (`ai` 7) both export, or shapes written here that both specifications' values fit: the
// declarations then type-check against either major with `skipLibCheck: false`. Inside, the code
// reads and writes these values as specification v4 (v3 has the same fields for everything it uses).

/**
 * A language model of the AI SDK, specification v4 (`ai` 7) or v3 (`ai` 6 and older provider
 * packages): what `openai('gpt-4o')`, `wrapLanguageModel(...)` or `MockLanguageModelV3/V4` return.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: 'v3' | 'v4'
  readonly provider: string
  readonly modelId: string
  // `never`: a model of either specification takes its own call options.
  doGenerate(options: never): PromiseLike<unknown>
  doStream(options: never): PromiseLike<unknown>
}

/** A content part of a result, read by its `type` (`text`, `tool-call`, `reasoning`, ...). */
export interface AiSdkContentPart {
  readonly type: string
}

/** A finish reason: `{ unified, raw }` in specifications v3 and v4, a plain string in older ones. */
export type AiSdkFinishReason = { readonly unified: string; readonly raw?: string | undefined } | string

/** Token usage in the nested shape of specifications v3 and v4. */
export interface AiSdkUsage {
  readonly inputTokens: {
    readonly total: number | undefined
    readonly noCache: number | undefined
    readonly cacheRead: number | undefined
    readonly cacheWrite: number | undefined
  }
  readonly outputTokens: { readonly total: number | undefined; readonly text?: number | undefined; readonly reasoning?: number | undefined }
}

/** Call options of a language model: v3's, which v4 extends only with fields the gate never sets. */
export type AiSdkCallOptions = LanguageModelV3CallOptions
