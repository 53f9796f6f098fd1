export { reliabilityMiddleware } from './reliability-middleware.ts'
export type { LangChainReliabilityMiddleware, LangChainReliabilityOptions } from './reliability-middleware.ts'
