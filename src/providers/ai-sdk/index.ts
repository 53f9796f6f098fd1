export { aiSdk } from './ai-sdk-provider.ts'
export type { AiSdkProviderOptions } from './ai-sdk-provider.ts'
export type {
  AiSdkCallOptions,
  AiSdkContentPart,
  AiSdkFinishReason,
  AiSdkLanguageModel,
  AiSdkMessage,
  AiSdkToolResultPart,
  AiSdkUsage,
} from './ai-sdk-shapes.ts'
export { aiSdkStopReason, fromAiSdkResult, fromAiSdkUsage } from './from-ai-sdk-result.ts'
export { toAiSdkCallOptions, toAiSdkMessage, toAiSdkPrompt } from './to-ai-sdk-prompt.ts'
export { aiSdkStreamChunks } from './ai-sdk-stream.ts'
