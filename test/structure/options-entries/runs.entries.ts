import { Agent, createGate, type Provider } from '../../../src/index.ts'
import { GATE_OPTION_NAMES } from '../../../src/gate/options/option-table.ts'
import { REQUEST_KEYS } from '../../../src/model/request-problem.ts'
import { GATE_RUN_OPTIONS, GATE_STREAM_OPTIONS } from '../../../src/gate/run-options-contract.ts'
import { AGENT_OPTIONS } from '../../../src/agent/agent-option-table.ts'
import { AGENT_RUN_OPTIONS, AGENT_STREAM_OPTIONS } from '../../../src/agent/run-options-contract.ts'
import { SESSION_OPTIONS } from '../../../src/agent/stored-conversation.ts'
import { RESUME_OPTIONS } from '../../../src/agent/approval/resume-options.ts'
import { WINDOW_OPTIONS } from '../../../src/sessions/session-window.ts'
import type { OptionsEntry } from './entry.ts'

/** A provider that answers at once. */
const provider: Provider = {
  name: 'p',
  complete: async () => ({ content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }),
}
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] }
const gate = () => createGate({ providers: provider })
const agent = () => Agent.create({ provider, model: 'm' }).build()

const GATE_NUMBERS = ['maxAttempts', 'maxFeedbackChars', 'maxFeedbackTokens']

/** The gate, the agent and their per-call options: runs, requests, sessions, windows. */
export const entries: readonly OptionsEntry[] = [
  {
    name: 'createGate',
    covers: ['.:createGate'],
    keys: GATE_OPTION_NAMES,
    durations: ['timeoutMs', 'runTimeoutMs'],
    numbers: GATE_NUMBERS,
    call: (options) => createGate({ providers: provider, ...options }),
  },
  {
    name: 'createGate providers entry',
    keys: ['provider', 'name', 'model'],
    call: (options) => createGate({ providers: [{ provider, ...options }] }),
  },
  {
    name: 'Agent.create',
    covers: ['.:Agent'],
    keys: Object.keys(AGENT_OPTIONS),
    numbers: ['maxIterations', 'maxToolRetries'],
    call: (options) => Agent.create({ provider, ...options }).build(),
  },
  {
    name: 'Agent.reliability',
    keys: GATE_OPTION_NAMES,
    durations: ['timeoutMs', 'runTimeoutMs'],
    numbers: GATE_NUMBERS,
    call: (options) => Agent.create({ provider }).reliability(options).build(),
  },
  {
    name: 'gate.run options',
    keys: GATE_RUN_OPTIONS.keys,
    durations: ['runTimeoutMs'],
    numbers: ['validationFailuresBefore', 'turn', 'startProvider'],
    call: (options) => gate().run(ask, options),
  },
  {
    name: 'gate.stream options',
    keys: GATE_STREAM_OPTIONS.keys,
    durations: ['runTimeoutMs'],
    numbers: ['validationFailuresBefore', 'turn', 'startProvider'],
    call: (options) => gate().stream(ask, options).result,
  },
  {
    name: 'request',
    keys: REQUEST_KEYS,
    numbers: ['maxTokens'],
    call: (options) => gate().run({ ...ask, ...options }),
  },
  {
    name: 'agent.run options',
    keys: AGENT_RUN_OPTIONS.keys,
    durations: ['runTimeoutMs'],
    call: (options) => agent().run('hi', options),
  },
  {
    name: 'agent.runTyped options',
    keys: AGENT_RUN_OPTIONS.keys,
    durations: ['runTimeoutMs'],
    call: (options) => agent().runTyped('hi', options),
  },
  {
    name: 'agent.runDetailed options',
    keys: AGENT_RUN_OPTIONS.keys,
    durations: ['runTimeoutMs'],
    call: (options) => agent().runDetailed('hi', options),
  },
  {
    name: 'agent.stream options',
    keys: AGENT_STREAM_OPTIONS.keys,
    durations: ['runTimeoutMs'],
    call: (options) => agent().stream('hi', options).result,
  },
  {
    name: 'agent.session options',
    keys: SESSION_OPTIONS.keys,
    durations: ['loadTimeoutMs'],
    call: (options) => agent().session('customer-42', options),
  },
  {
    name: 'window',
    keys: WINDOW_OPTIONS.keys,
    numbers: ['maxMessages', 'maxTokens'],
    call: (options) => agent().session('customer-42', { window: options }),
  },
  {
    name: 'session.run options',
    keys: AGENT_RUN_OPTIONS.keys,
    durations: ['runTimeoutMs'],
    call: async (options) => (await agent().session('customer-42')).run('hi', options),
  },
  {
    // Checked before the store is read: an approval id no run made is never looked up with a refused option.
    name: 'session.resume options',
    keys: RESUME_OPTIONS.keys,
    durations: ['runTimeoutMs', 'leaseMs'],
    call: async (options) => (await agent().session('customer-42')).resume(`apr_${'0'.repeat(32)}`, options as never),
  },
]
