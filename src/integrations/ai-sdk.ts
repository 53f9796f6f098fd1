// The `reliability-gate/ai-sdk` entry: the provider adapter and the `wrapLanguageModel` middleware.
export { aiSdk, aiSdkStopReason, fromAiSdkResult, fromAiSdkUsage, toAiSdkCallOptions } from '../providers/ai-sdk/index.ts'
export type { AiSdkLanguageModel, AiSdkProviderOptions } from '../providers/ai-sdk/index.ts'
export { isNoObjectGenerated, reliabilityMiddleware } from './ai-sdk-middleware/index.ts'
export type { NoObjectGeneratedFields, ReliabilityMiddleware, ReliabilityMiddlewareOptions } from './ai-sdk-middleware/index.ts'
