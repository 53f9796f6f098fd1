import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import {
  Agent,
  circuitBreaker,
  createGate,
  driftMonitor,
  idShapeGuard,
  isProviderError,
  memoryStore,
  pricingTable,
  ProviderError,
  sharedBudget,
  sharedRateLimit,
  type StateStore,
  tool,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

// What every factory must answer for options that are not options: a TypeError naming it.
const NOT_OPTIONS: readonly [string, unknown][] = [
  ['null', null],
  ['a number', 5],
  ['a string', 'fast'],
  ['an array', [{}]],
]

/** A store missing `reserve` and `settle` (a StateStore from before they were required). */
const halfStore = (): Partial<StateStore> => {
  const { get, set, increment, compareAndSet } = memoryStore()
  return { get, set, increment, compareAndSet }
}

describe('factories given options that are not options', () => {
  it.each(NOT_OPTIONS)('circuitBreaker, memoryStore and idShapeGuard refuse %s', (_name, options) => {
    expect(() => circuitBreaker(options as never)).toThrow(/^circuitBreaker: options must be an object, got /)
    expect(() => memoryStore(options as never)).toThrow(/^memoryStore: options must be an object, got /)
    expect(() => idShapeGuard(options as never)).toThrow(/^idShapeGuard: options must be an object, got /)
  })

  it.each(NOT_OPTIONS.slice(0, 3))('sharedBudget, sharedRateLimit, pricingTable and driftMonitor refuse %s', (_name, options) => {
    expect(() => sharedBudget(options as never)).toThrow(TypeError)
    expect(() => sharedBudget(options as never)).toThrow(/^sharedBudget: expected \{ store, key, usd \}/)
    expect(() => sharedRateLimit(options as never)).toThrow(/^sharedRateLimit: expected \{ store, key, limit, windowMs \}/)
    expect(() => pricingTable(options as never)).toThrow(/^pricingTable: expected an object of prices by model/)
    const gate = createGate({
      providers: [{ name: 'p', complete: async () => ({ content: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' }) }],
    })
    expect(() => driftMonitor(gate, options as never)).toThrow(/^driftMonitor: expected \{ window, threshold \}/)
  })

  it('still take no options where none are needed', () => {
    expect(() => circuitBreaker()).not.toThrow()
    expect(() => memoryStore()).not.toThrow()
    expect(() => idShapeGuard()).not.toThrow()
  })
})

describe('factories given a store, key or source that cannot work', () => {
  it('a store without the methods the library calls, naming the missing ones', () => {
    expect(() => sharedBudget({ store: halfStore() as StateStore, key: 'team', usd: 5 })).toThrow(
      /sharedBudget: store must be a StateStore .*missing reserve\(\), settle\(\)/,
    )
    expect(() => sharedRateLimit({ store: {} as StateStore, key: 'api', limit: 5, windowMs: 1000 })).toThrow(
      /sharedRateLimit: store must be a StateStore .*missing get\(\), set\(\)/,
    )
    expect(() => circuitBreaker({ store: 5 as never })).toThrow(/circuitBreaker: store must be a StateStore, missing get\(\)/)
  })

  it('a key that is missing or empty', () => {
    expect(() => sharedBudget({ store: memoryStore(), usd: 5 } as never)).toThrow(/sharedBudget: key must be a non-empty string, got undefined/)
    expect(() => sharedRateLimit({ store: memoryStore(), key: '', limit: 5, windowMs: 1000 })).toThrow(
      /sharedRateLimit: key must be a non-empty string, got ""/,
    )
  })

  it('a clock that is no function', () => {
    expect(() => memoryStore({ now: 1000 as never })).toThrow(/memoryStore: now must be a function/)
    expect(() => sharedRateLimit({ store: memoryStore(), key: 'k', limit: 1, windowMs: 10, now: 'now' as never })).toThrow(
      /sharedRateLimit: now must be a function/,
    )
  })

  it('driftMonitor on something that has no events', () => {
    expect(() => driftMonitor(null as never, { window: 10, threshold: 0.5 })).toThrow(/driftMonitor: source must be a gate or an agent/)
    expect(() => driftMonitor({} as never, { window: 10, threshold: 0.5 })).toThrow(/driftMonitor: source must be a gate or an agent/)
  })

  it('idShapeGuard with a pattern given as text or fields that are not names', () => {
    expect(() => idShapeGuard({ pattern: '^ord_' as never })).toThrow('idShapeGuard: pattern must be a RegExp, got "^ord_"')
    expect(() => idShapeGuard({ fields: 'orderId' as never })).toThrow(/idShapeGuard: fields must be an array of property names/)
    expect(() => idShapeGuard({ fields: ['orderId', 7] as never })).toThrow(/fields must be an array of property names/)
  })

  it('Agent.create with a name, model, log format or logger that cannot work', () => {
    const provider = {
      name: 'p',
      complete: async () => ({ content: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' as const }),
    }
    expect(() => Agent.create({ provider, name: 42 as never })).toThrow(/Agent\.create: name must be a string, got number/)
    expect(() => Agent.create({ provider, model: ['gpt-4o'] as never })).toThrow(/Agent\.create: model must be a string, got an array/)
    expect(() => Agent.create({ provider, name: '' })).toThrow(/Agent\.create: name must be a non-empty string, got ""/)
    expect(() => Agent.create({ provider, model: '' })).toThrow(/Agent\.create: model must be a non-empty string, got ""/)
    expect(() => Agent.create({ provider, logFormat: 'xml' as never })).toThrow(/Agent\.create: logFormat must be 'auto', 'line' or 'fields', got "xml"/)
    expect(() => Agent.create({ provider, logger: 5 as never })).toThrow(
      /Agent\.create: logger must have at least one of debug\(\), info\(\), warn\(\), error\(\) .*got number/,
    )
    expect(() => Agent.create({ provider, logger: { log: () => undefined } as never })).toThrow(/logger must have at least one of/)
    // console, and a logger with only the levels it wants, are loggers.
    expect(() => Agent.create({ provider, logger: console, logFormat: 'line' }).build()).not.toThrow()
    expect(() => Agent.create({ provider, logger: { warn: () => undefined } }).build()).not.toThrow()
  })

  it('tool() with an input schema that does not describe an object of arguments', () => {
    expect(() => tool({ name: 'echo', description: 'd', input: Type.String(), execute: () => 1 })).toThrow(
      /tool 'echo': input must describe an object \(the call's named arguments\), got a schema of type "string"/,
    )
    expect(() => tool({ name: 'list', description: 'd', input: Type.Array(Type.String()), execute: () => 1 })).toThrow(/got a schema of type "array"/)
    expect(tool({ name: 'lookup', description: 'd', input: Type.Object({ id: Type.Integer() }), execute: () => 1 }).spec.inputSchema).toMatchObject({
      type: 'object',
    })
  })
})

describe('counts past what a number counts exactly', () => {
  // 2^53 + 1 reads as 2^53: a count there (or at 1e300) could never be reached one by one, and is no limit.
  it.each([2 ** 53, 1e300])('createGate, Agent.create and both host middlewares refuse %s attempts, iterations or tool retries', async (n) => {
    const provider = scripted(['x'])
    expect(() => createGate({ providers: provider, maxAttempts: n })).toThrow(/maxAttempts must be a positive integer/)
    expect(() => Agent.create({ provider, maxIterations: n })).toThrow(/maxIterations/)
    expect(() => Agent.create({ provider, maxToolRetries: n })).toThrow(/maxToolRetries/)
    const { reliabilityMiddleware } = await import('../../src/integrations/ai-sdk-middleware/reliability-middleware.ts')
    expect(() => reliabilityMiddleware({ maxToolRetries: n })).toThrow(/maxToolRetries/)
    const langchain = await import('../../src/integrations/langchain/reliability-middleware.ts')
    expect(() => langchain.reliabilityMiddleware({ maxToolRetries: n })).toThrow(/maxToolRetries/)
  })

  it('still takes the largest exact count', () => {
    expect(() => createGate({ providers: scripted(['x']), maxAttempts: Number.MAX_SAFE_INTEGER })).not.toThrow()
  })
})

describe('options holding keys the prototype supplies', () => {
  // Options parsed from JSON can hold "__proto__" or "constructor" as their own keys: they are no options, not inherited ones.
  const withOwnKey = <T extends object>(key: string, options: T): T => Object.assign(JSON.parse(`{${JSON.stringify(key)}: 1}`) as object, options)

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('createGate, Agent.create and Agent.reliability refuse the key %s', (key) => {
    const unknown = (label: string) => new RegExp(`^${label}: unknown option ${JSON.stringify(key)}; the options are `)
    expect(() => createGate(withOwnKey(key, { providers: scripted(['x']) }))).toThrow(TypeError)
    expect(() => createGate(withOwnKey(key, { providers: scripted(['x']) }))).toThrow(unknown('createGate'))
    expect(() => Agent.create(withOwnKey(key, { provider: scripted(['x']) }))).toThrow(unknown('Agent\\.create'))
    expect(() => Agent.create({ provider: scripted(['x']) }).reliability(withOwnKey(key, {}))).toThrow(unknown('Agent\\.reliability'))
  })
})

describe('ProviderError', () => {
  it('without options is of kind unknown, and still a ProviderError', () => {
    const error = new (ProviderError as unknown as new (message: string) => ProviderError)('socket closed')
    expect(error.kind).toBe('unknown')
    expect(isProviderError(error)).toBe(true)
    expect(error.message).toBe('socket closed')
  })

  it('refuses a kind that is no error kind, listing the kinds', () => {
    expect(() => new ProviderError('slow down', { kind: 'rate_limit' as never })).toThrow(TypeError)
    expect(() => new ProviderError('slow down', { kind: 'rate_limit' as never })).toThrow(
      /ProviderError: options\.kind must be one of ok, schema-fail, .*rate-limit.*, got "rate_limit"/,
    )
    expect(() => new ProviderError('x', null as never)).toThrow(/got options null/)
  })

  it('keeps what it is given', () => {
    const cause = new Error('ECONNRESET')
    const error = new ProviderError('reset', { kind: 'network', status: 503, code: 'ECONNRESET', retryAfterMs: 10, provider: 'p', cause })
    expect(error).toMatchObject({ kind: 'network', status: 503, code: 'ECONNRESET', retryAfterMs: 10, provider: 'p', cause })
  })
})
