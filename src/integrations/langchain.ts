// The `reliability-gate/langchain` entry: the gate as LangChain.js v1 agent middleware.
export { reliabilityMiddleware } from './langchain/index.ts'
export type { LangChainReliabilityMiddleware, LangChainReliabilityOptions } from './langchain/index.ts'
