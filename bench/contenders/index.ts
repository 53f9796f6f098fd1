import { aiSdkMiddlewareContender } from './ai-sdk-middleware.ts'
import { aiSdkContender } from './ai-sdk.ts'
import { cockatielContender } from './cockatiel.ts'
import type { Contender } from './contender.ts'
import { floor } from './floor.ts'
import { agentContender, gateContender } from './gate.ts'
import { instructorContender } from './instructor.ts'
import { langchainContender } from './langchain.ts'

export type { Contender, Runnable, Unsupported } from './contender.ts'
export { isUnsupported } from './contender.ts'

/** Every contender, the floor first (ratios are to the floor). */
export const CONTENDERS: readonly Contender[] = [
  floor,
  gateContender(false),
  gateContender(true),
  agentContender,
  cockatielContender,
  instructorContender,
  aiSdkContender,
  aiSdkMiddlewareContender,
  langchainContender,
]
