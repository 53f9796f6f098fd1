import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3ReasoningPart,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
} from '@ai-sdk/provider'

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

/** A tool result with a text output (`text` or `error-text`): the same in v3 and v4. */
export type AiSdkToolResultPart = Omit<LanguageModelV3ToolResultPart, 'output'> & {
  output: Extract<LanguageModelV3ToolResultOutput, { type: 'text' | 'error-text' }>
}

/** A prompt message of the parts v3 and v4 share: text, reasoning, tool calls and text tool results. */
export type AiSdkMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: LanguageModelV3TextPart[] }
  | { role: 'assistant'; content: Array<LanguageModelV3TextPart | LanguageModelV3ReasoningPart | LanguageModelV3ToolCallPart> }
  | { role: 'tool'; content: AiSdkToolResultPart[] }

/** Call options a model of either specification takes: v3's, with a prompt of shared parts and function tools only. */
export type AiSdkCallOptions = Omit<LanguageModelV3CallOptions, 'prompt' | 'tools'> & { prompt: AiSdkMessage[]; tools?: LanguageModelV3FunctionTool[] }
