export { reliabilityMiddleware } from './reliability-middleware.ts'
export type { ReliabilityMiddleware, ReliabilityMiddlewareOptions } from './reliability-middleware.ts'
export { promptToMessages } from './prompt-to-messages.ts'
