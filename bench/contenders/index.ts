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
  { name: 'floor (hand-written loop)', load: async () => (await import('./floor.ts')).floor },
  { name: 'floor + attempt log (hand-written)', load: async () => (await import('./floor-with-log.ts')).floorWithLog },
  { name: 'reliability-gate: gate', load: async () => (await import('./gate.ts')).gateContender(false) },
  { name: 'reliability-gate: gate + events', load: async () => (await import('./gate.ts')).gateContender(true) },
  { name: 'reliability-gate: Agent.runTyped + events', load: async () => (await import('./gate.ts')).agentContender },
  { name: 'cockatiel retry + hand-written call', load: async () => (await import('./cockatiel.ts')).cockatielContender },
  { name: 'instructor-js (max_retries)', load: async () => (await import('./instructor.ts')).instructorContender },
  { name: 'Vercel AI SDK generateText + Output.object', load: async () => (await import('./ai-sdk.ts')).aiSdkContender },
  { name: 'Vercel AI SDK + reliability-gate middleware', load: async () => (await import('./ai-sdk-middleware.ts')).aiSdkMiddlewareContender },
  { name: 'LangChain.js FakeListChatModel + parser + withRetry', load: async () => (await import('./langchain.ts')).langchainContender },
]
