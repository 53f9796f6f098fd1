import { EventHub } from '../events/event-hub.ts'
import { shownValue, typeName } from '../model/describe-value.ts'
import { isRecord } from '../model/is-record.ts'
import { missingMethods } from '../model/options-object.ts'

type Check = readonly [key: string, expected: string, ok: (value: unknown) => boolean]

const isFunction = (value: unknown): boolean => typeof value === 'function'
const isString = (value: unknown): boolean => typeof value === 'string'
const isBoolean = (value: unknown): boolean => typeof value === 'boolean'
const hasMethods = (value: unknown, ...names: string[]): boolean => missingMethods(value, names).length === 0

// The options whose type is not checked where they are used (rules, numbers, providers, the schema,
// a pricing table's rows and breaker options have their own checks with their own messages).
const CHECKS: readonly Check[] = [
  ['model', 'a string', isString],
  ['fallback', 'a function of the scope', isFunction],
  ['priceUsage', 'a function (usage, model, provider) => USD', isFunction],
  ['pricing', 'a table of prices by model', isRecord],
  ['breaker', 'circuit breaker options, a CircuitBreaker or false', (value) => value === false || isRecord(value)],
  ['budget', 'a shared budget made by sharedBudget()', (value) => hasMethods(value, 'reserve', 'settle', 'spent')],
  ['rateLimit', 'a shared rate limit made by sharedRateLimit()', (value) => hasMethods(value, 'acquire')],
  ['middleware', 'an array of links', Array.isArray],
  ['events', 'an EventHub', (value) => value instanceof EventHub],
  ['now', 'a function returning milliseconds', isFunction],
  ['feedbackMode', "'latest' or 'accumulate'", (value) => value === 'latest' || value === 'accumulate'],
  ['errorFeedback', 'a boolean', isBoolean],
  ['errorTemplate', 'a template string or a function of the variables', (value) => isString(value) || isFunction(value)],
  ['repair', 'a boolean', isBoolean],
  ['retryHint', 'a string', isString],
]

/**
 * Throws a `TypeError` naming the first option of a gate's config (or an agent's reliability
 * options, which become one) whose value has the wrong type, so that a typo fails where it is
 * written rather than as a run's odd behaviour. `label`: `createGate` or the agent's.
 */
export function checkConfig(config: unknown, label = 'createGate'): void {
  if (!isRecord(config)) throw new TypeError(`${label}: expected an object of options, got ${typeName(config)}`)
  for (const [key, expected, ok] of CHECKS) {
    const value = config[key]
    if (value !== undefined && !ok(value)) throw new TypeError(`${label}: ${key} must be ${expected}, got ${shownValue(value)}`)
  }
}
