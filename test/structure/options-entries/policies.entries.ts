import {
  circuitBreaker,
  exponentialBackoff,
  maxCostRule,
  memoryStore,
  pricingTable,
  retryTransient,
  retryTruncated,
  sharedBudget,
  sharedRateLimit,
  strictOutput,
  strictOutputRules,
} from '../../../src/index.ts'
import { redisStore } from '../../../src/redis.ts'
import type { OptionsEntry } from './entry.ts'

/** A client the store accepts; no option check ever reaches it. */
const client = {
  eval: async () => null,
  evalsha: async () => null,
  pipeline: () => {
    throw new Error('not used')
  },
}

/** The state stores', the policies' and the rules' factories' options objects. */
export const entries: readonly OptionsEntry[] = [
  {
    name: 'redisStore',
    covers: ['redis:redisStore'],
    keys: ['keyPrefix', 'onStateLost', 'durable', 'commandTimeoutMs', 'maxPending'],
    durations: ['commandTimeoutMs'],
    numbers: ['maxPending'],
    call: (options) => redisStore(client, options),
  },
  {
    name: 'redisStore durable',
    keys: ['replicas', 'timeoutMs'],
    durations: ['timeoutMs'],
    numbers: ['replicas'],
    call: (options) => redisStore(client, { durable: { replicas: 1, timeoutMs: 10, ...options } as never }),
  },
  {
    name: 'memoryStore',
    covers: ['.:memoryStore'],
    keys: ['now'],
    call: (options) => memoryStore(options),
  },
  {
    name: 'sharedBudget',
    covers: ['.:sharedBudget'],
    keys: ['store', 'key', 'usd', 'ttlMs', 'reserveUsd', 'assumedOutputTokens', 'reservationTtlMs', 'maxWaitMs', 'onUnpriced'],
    durations: ['ttlMs', 'reservationTtlMs', 'maxWaitMs'],
    numbers: ['usd', 'reserveUsd', 'assumedOutputTokens'],
    call: (options) => sharedBudget({ store: memoryStore(), key: 'budget', usd: 1, ...options }),
  },
  {
    name: 'sharedRateLimit',
    covers: ['.:sharedRateLimit'],
    keys: ['store', 'key', 'limit', 'windowMs', 'now'],
    durations: ['windowMs'],
    numbers: ['limit'],
    call: (options) => sharedRateLimit({ store: memoryStore(), key: 'rate', limit: 5, windowMs: 1000, ...options }),
  },
  {
    name: 'circuitBreaker',
    covers: ['.:circuitBreaker'],
    keys: ['failureThreshold', 'cooldownMs', 'halfOpenMaxProbes', 'successesToClose', 'store', 'keyPrefix', 'now'],
    durations: ['cooldownMs'],
    numbers: ['failureThreshold', 'halfOpenMaxProbes', 'successesToClose'],
    call: (options) => circuitBreaker(options),
  },
  {
    name: 'pricingTable options',
    covers: ['.:pricingTable'],
    keys: ['onUnknownModel'],
    call: (options) => pricingTable({ m: { input: 1, output: 2 } }, options),
  },
  {
    name: 'pricingTable price',
    keys: ['input', 'output', 'cacheRead', 'cacheWrite'],
    numbers: ['input', 'output', 'cacheRead', 'cacheWrite'],
    call: (options) => pricingTable({ m: { input: 1, output: 2, ...options } as never }),
  },
  {
    name: 'exponentialBackoff',
    covers: ['.:exponentialBackoff'],
    keys: ['initialMs', 'maxMs', 'factor', 'jitter', 'random'],
    durations: ['initialMs', 'maxMs'],
    numbers: ['factor', 'jitter'],
    call: (options) => exponentialBackoff(options),
  },
  {
    name: 'maxCostRule options',
    covers: ['.:maxCostRule'],
    keys: ['estimate', 'onExceed', 'onUnpriced'],
    call: (options) => maxCostRule(1, options),
  },
  {
    name: 'retryTransient',
    covers: ['.:retryTransient'],
    keys: ['maxRetries', 'backoff', 'kinds', 'maxRetryAfterMs'],
    durations: ['maxRetryAfterMs'],
    numbers: ['maxRetries'],
    call: (options) => retryTransient(options),
  },
  {
    name: 'retryTransient backoff',
    keys: ['initialMs', 'maxMs', 'factor', 'jitter', 'random'],
    durations: ['initialMs', 'maxMs'],
    numbers: ['factor', 'jitter'],
    call: (options) => retryTransient({ backoff: options }),
  },
  {
    name: 'retryTruncated',
    covers: ['.:retryTruncated'],
    keys: ['growFactor', 'maxTokensCap', 'assumedMaxTokens'],
    numbers: ['growFactor', 'maxTokensCap', 'assumedMaxTokens'],
    call: (options) => retryTruncated(options),
  },
  {
    name: 'strictOutput',
    covers: ['.:strictOutput'],
    keys: ['hasSchema', 'maxAttempts', 'errorFeedback', 'retryHint', 'retryOn', 'schemaStrict', 'maxFeedbackTokens', 'errorTemplate', 'stuckAfter', 'backoff'],
    numbers: ['maxAttempts', 'maxFeedbackTokens', 'stuckAfter'],
    call: (options) => strictOutput(options),
  },
  {
    name: 'strictOutput.fromStepConfig options',
    keys: ['hasSchema', 'backoff', 'baseDir'],
    call: (options) => strictOutput.fromStepConfig({ max_attempts: 2 }, options),
  },
  {
    name: 'strictOutputRules options',
    covers: ['.:strictOutputRules'],
    keys: ['stuckAfter'],
    numbers: ['stuckAfter'],
    call: (options) => strictOutputRules(3, options),
  },
]
