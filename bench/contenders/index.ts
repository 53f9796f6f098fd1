import { AGENT_PLAIN, AGENT_PRODUCTION, COCKATIEL_PRODUCTION, FLOOR, FLOOR_WITH_LOG, GATE_NO_LISTENER, GATE_PLAIN, GATE_PRODUCTION } from '../targets.ts'
import type { Contender } from './contender.ts'

export type { Contender, Runnable, Unsupported } from './contender.ts'
export { isUnsupported } from './contender.ts'

/** A contender by name, loaded only when measured: a child process imports its own library alone. */
export interface ContenderEntry {
  readonly name: string
  readonly load: () => Promise<Contender>
}

/** Every contender, the floor first (ratios are to the floor). */
export const CONTENDERS: readonly ContenderEntry[] = [
  { name: FLOOR, load: async () => (await import('./floor.ts')).floor },
  { name: FLOOR_WITH_LOG, load: async () => (await import('./floor-with-log.ts')).floorWithLog },
  { name: GATE_NO_LISTENER, load: async () => (await import('./gate.ts')).gateContender(false) },
  { name: GATE_PLAIN, load: async () => (await import('./gate.ts')).gateContender(true) },
  { name: AGENT_PLAIN, load: async () => (await import('./gate.ts')).agentContender },
  { name: GATE_PRODUCTION, load: async () => (await import('./production.ts')).gateProductionContender },
  { name: AGENT_PRODUCTION, load: async () => (await import('./production.ts')).agentProductionContender },
  { name: COCKATIEL_PRODUCTION, load: async () => (await import('./cockatiel-production.ts')).cockatielProductionContender },
  { name: 'cockatiel retry + hand-written call', load: async () => (await import('./cockatiel.ts')).cockatielContender },
  { name: 'instructor-js (max_retries)', load: async () => (await import('./instructor.ts')).instructorContender },
  { name: 'Vercel AI SDK generateText + Output.object', load: async () => (await import('./ai-sdk.ts')).aiSdkContender },
  { name: 'Vercel AI SDK + reliability-gate middleware', load: async () => (await import('./ai-sdk-middleware.ts')).aiSdkMiddlewareContender },
  { name: 'LangChain.js FakeListChatModel + parser + withRetry', load: async () => (await import('./langchain.ts')).langchainContender },
]
