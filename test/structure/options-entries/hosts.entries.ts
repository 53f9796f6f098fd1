import { reliabilityMiddleware as aiSdkMiddleware, aiSdk, noProgressSteps } from '../../../src/integrations/ai-sdk.ts'
import { RELIABILITY_MIDDLEWARE } from '../../../src/integrations/ai-sdk-middleware/reliability-middleware-options.ts'
import { reliabilityMiddleware as langChainMiddleware } from '../../../src/integrations/langchain.ts'
import { ProviderError } from '../../../src/index.ts'
import { anthropic, toAnthropicRequest } from '../../../src/providers/anthropic/index.ts'
import { scripted, simulated } from '../../../src/providers/index.ts'
import { openai, toOpenAIRequest } from '../../../src/providers/openai/index.ts'
import type { OptionsEntry } from './entry.ts'

/** The gate's keys a host middleware takes, its durations and its numbers. */
const GATE_KEYS = RELIABILITY_MIDDLEWARE.keys.filter(
  (key) =>
    !['streamMode', 'events', 'maxToolRetries', 'toolGuards', 'logger', 'name', 'forcedToolReask', 'toolGiveUpStops', 'noProgress', 'contentGuards'].includes(
      key,
    ),
)
const GATE_DURATIONS = ['timeoutMs', 'runTimeoutMs']
const GATE_NUMBERS = ['maxFeedbackChars', 'maxFeedbackTokens', 'maxAttempts']

const openAIClient = { chat: { completions: { create: async () => ({}) } } }
const anthropicClient = { messages: { create: async () => ({}) } }
const languageModel = { specificationVersion: 'v3', provider: 'p', modelId: 'm', doGenerate: async () => ({}), doStream: async () => ({}) }

/** The hosts' options objects: the AI SDK and LangChain middlewares, the provider factories, the request builders, `ProviderError`. */
export const entries: readonly OptionsEntry[] = [
  {
    name: 'reliabilityMiddleware (AI SDK)',
    covers: ['ai-sdk:reliabilityMiddleware'],
    keys: [
      ...GATE_KEYS,
      'streamMode',
      'events',
      'maxToolRetries',
      'toolGuards',
      'logger',
      'name',
      'forcedToolReask',
      'toolGiveUpStops',
      'noProgress',
      'contentGuards',
    ],
    durations: GATE_DURATIONS,
    numbers: [...GATE_NUMBERS, 'maxToolRetries'],
    call: (options) => aiSdkMiddleware(options as never),
  },
  {
    name: 'reliabilityMiddleware (LangChain)',
    covers: ['langchain:reliabilityMiddleware'],
    keys: [...GATE_KEYS, 'maxToolRetries', 'forcedToolReask', 'toolGiveUpStops', 'logger', 'name', 'noProgress', 'contentGuards'],
    durations: GATE_DURATIONS,
    numbers: [...GATE_NUMBERS, 'maxToolRetries'],
    call: (options) => langChainMiddleware(options as never),
  },
  {
    name: 'noProgressSteps',
    covers: ['ai-sdk:noProgressSteps'],
    keys: ['repeats', 'errorRepeats', 'pingPong', 'textRepeats', 'loopKey', 'exempt', 'forcedChange', 'tools'],
    numbers: ['repeats', 'errorRepeats', 'pingPong', 'textRepeats'],
    call: (options) => noProgressSteps(options as never),
  },
  {
    name: 'reliabilityMiddleware noProgress (AI SDK)',
    keys: ['repeats', 'errorRepeats', 'pingPong', 'textRepeats', 'loopKey', 'exempt', 'forcedChange'],
    numbers: ['repeats', 'errorRepeats', 'pingPong', 'textRepeats'],
    call: (options) => aiSdkMiddleware({ noProgress: options as never }),
  },
  {
    name: 'reliabilityMiddleware noProgress (LangChain)',
    keys: ['repeats', 'errorRepeats', 'pingPong', 'textRepeats', 'loopKey', 'exempt', 'forcedChange'],
    numbers: ['repeats', 'errorRepeats', 'pingPong', 'textRepeats'],
    call: (options) => langChainMiddleware({ noProgress: options as never }),
  },
  {
    name: 'scripted',
    covers: ['providers:scripted'],
    keys: ['name'],
    call: (options) => scripted(['x'], options as never),
  },
  {
    name: 'simulated',
    covers: ['providers:simulated'],
    keys: ['seed', 'faults', 'ignoreFeedback', 'name', 'latencyMs'],
    durations: ['latencyMs'],
    numbers: ['seed'],
    call: (options) => simulated(options as never),
  },
  {
    name: 'openai',
    covers: ['openai:openai'],
    keys: ['client', 'model', 'name', 'structuredOutput', 'schemaName', 'extraBody'],
    call: (options) => openai({ client: openAIClient, ...options } as never),
  },
  {
    name: 'toOpenAIRequest',
    covers: ['openai:toOpenAIRequest'],
    keys: ['model', 'structuredOutput', 'schemaName', 'extraBody'],
    call: (options) =>
      toOpenAIRequest(
        { messages: [{ role: 'user', content: 'hi' }] },
        { model: 'm', structuredOutput: 'json_schema', schemaName: 'r', extraBody: undefined, ...options },
      ),
  },
  {
    name: 'anthropic',
    covers: ['anthropic:anthropic'],
    keys: ['client', 'model', 'name', 'maxTokens', 'cache', 'structuredOutput', 'extraBody'],
    numbers: ['maxTokens'],
    call: (options) => anthropic({ client: anthropicClient, ...options } as never),
  },
  {
    name: 'toAnthropicRequest',
    covers: ['anthropic:toAnthropicRequest'],
    keys: ['model', 'maxTokens', 'cache', 'structuredOutput', 'extraBody'],
    numbers: ['maxTokens'],
    call: (options) =>
      toAnthropicRequest(
        { messages: [{ role: 'user', content: 'hi' }] },
        { model: 'm', maxTokens: 10, cache: false, structuredOutput: false, extraBody: undefined, ...options },
      ),
  },
  {
    name: 'aiSdk',
    covers: ['ai-sdk:aiSdk'],
    keys: ['name', 'structuredOutput'],
    call: (options) => aiSdk(languageModel as never, options as never),
  },
  {
    name: 'ProviderError',
    covers: ['.:ProviderError'],
    keys: ['kind', 'status', 'code', 'retryAfterMs', 'provider', 'cause'],
    numbers: ['status', 'retryAfterMs'],
    call: (options) => new ProviderError('x', { kind: 'timeout', ...options } as never),
  },
]
