// The `reliability-gate/ai-sdk` entry: the provider adapter and the `wrapLanguageModel` middleware.
export { aiSdk, aiSdkStopReason, fromAiSdkResult, fromAiSdkUsage, toAiSdkCallOptions } from '../providers/ai-sdk/index.ts'
export type {
  AiSdkCallOptions,
  AiSdkContentPart,
  AiSdkFinishReason,
  AiSdkLanguageModel,
  AiSdkMessage,
  AiSdkProviderOptions,
  AiSdkToolResultPart,
  AiSdkUsage,
} from '../providers/ai-sdk/index.ts'
export { isNoObjectGenerated, noProgressSteps, reliabilityMiddleware } from './ai-sdk-middleware/index.ts'
export type {
  MessageLike,
  MiddlewareCall,
  MiddlewareModel,
  MiddlewareParams,
  NoObjectGeneratedFields,
  NoProgressPrepared,
  NoProgressSteps,
  NoProgressStepsOptions,
  ReliabilityMiddleware,
  ReliabilityMiddlewareOptions,
  StepLike,
} from './ai-sdk-middleware/index.ts'
