// The `reliability-gate/ai-sdk` entry: the provider adapter and the `wrapLanguageModel` middleware.
export { aiSdk, aiSdkStopReason, fromAiSdkResult, fromAiSdkUsage, toAiSdkCallOptions } from '../providers/ai-sdk/index.ts'
export type { AiSdkLanguageModel, AiSdkProviderOptions } from '../providers/ai-sdk/index.ts'
export { reliabilityMiddleware } from './ai-sdk-middleware/index.ts'
export type { ReliabilityMiddleware, ReliabilityMiddlewareOptions } from './ai-sdk-middleware/index.ts'
