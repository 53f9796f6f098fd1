import type { AgentOptions, AgentSpec } from './agent-options.ts'

/**
 * What an agent option adds to a run: `setup` (read once when the agent is built), `run` (the ReAct
 * loop), `tools` (each tool call), `logs` (the agent's log lines), `gate` (handed to the gate, whose
 * own table says what it adds), `commit` (the session's history).
 */
export type AgentOptionAct = 'setup' | 'run' | 'tools' | 'logs' | 'gate' | 'commit'

/** Every option of `Agent.create`, with what it adds: an option without a row does not compile. */
export const AGENT_OPTIONS: { readonly [K in keyof Required<AgentOptions>]: AgentOptionAct } = {
  provider: 'gate',
  model: 'gate',
  name: 'logs',
  logger: 'logs',
  logFormat: 'logs',
  maxIterations: 'run',
  noProgress: 'run',
  maxToolRetries: 'tools',
  forcedToolReask: 'tools',
  toolGiveUpStops: 'tools',
  toolGuards: 'tools',
  contentGuards: 'run',
  sessions: 'commit',
}

/** Everything the builder collects, with what it adds: a builder feature without a row does not compile. */
export const AGENT_SPEC: { readonly [K in keyof Required<AgentSpec>]: AgentOptionAct } = {
  options: 'setup',
  system: 'gate',
  outputSchema: 'gate',
  reliability: 'gate',
  tools: 'tools',
  outputFallback: 'run',
  costBudget: 'run',
  middleware: 'gate',
  events: 'setup',
  sessions: 'commit',
}
