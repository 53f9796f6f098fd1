import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { circuitBreaker, createGate, memoryStore, pricingTable, sharedBudget, sharedRateLimit } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { redisSessionStore, redisStore } from '../../src/redis.ts'
import { redisCallChecks } from '../../src/store/redis/call-settings.ts'
import { validRefundJson } from '../support/schemas.ts'

const client = { eval: async () => null, evalsha: async () => null }
const store = memoryStore()

/** Every factory of the state stores and policies, with the keys its options object takes. */
const FACTORIES: readonly { readonly name: string; readonly keys: readonly string[]; readonly call: (extra: object) => unknown }[] = [
  { name: 'redisStore', keys: ['keyPrefix', 'onStateLost', 'durable', 'commandTimeoutMs', 'maxPending'], call: (o) => redisStore(client, o) },
  { name: 'memoryStore', keys: ['now'], call: (o) => memoryStore(o) },
  {
    name: 'sharedBudget',
    keys: ['store', 'key', 'usd', 'ttlMs', 'reserveUsd', 'assumedOutputTokens', 'reservationTtlMs', 'maxWaitMs', 'onUnpriced'],
    call: (o) => sharedBudget({ store, key: 'b', usd: 1, ...o }),
  },
  {
    name: 'sharedRateLimit',
    keys: ['store', 'key', 'limit', 'windowMs', 'now'],
    call: (o) => sharedRateLimit({ store, key: 'r', limit: 1, windowMs: 1000, ...o }),
  },
  {
    name: 'circuitBreaker',
    keys: ['failureThreshold', 'cooldownMs', 'halfOpenMaxProbes', 'successesToClose', 'store', 'keyPrefix', 'now'],
    call: (o) => circuitBreaker(o),
  },
  { name: 'pricingTable', keys: ['onUnknownModel'], call: (o) => pricingTable({ m: { input: 1, output: 1 } }, o) },
]

describe('the options of the state stores and the policies', () => {
  it.each([
    ['redisStore', () => redisStore(client, { keyprefix: 't1:' } as never), /redisStore: unknown option "keyprefix" \(did you mean "keyPrefix"\?\)/],
    [
      'sharedBudget',
      () => sharedBudget({ store, key: 'b', usd: 1, reserveUSD: 0.5 } as never),
      /sharedBudget: unknown option "reserveUSD" \(did you mean "reserveUsd"\?\)/,
    ],
    [
      'circuitBreaker',
      () => circuitBreaker({ threshold: 3 } as never),
      /circuitBreaker: unknown option "threshold" \(did you mean "failureThreshold"\?\)|circuitBreaker: unknown option "threshold"/,
    ],
    ['sharedRateLimit', () => sharedRateLimit({ store, key: 'r', limit: 1, windowMs: 1000, windowMS: 5 } as never), /did you mean "windowMs"/],
    ['memoryStore', () => memoryStore({ Now: Date.now } as never), /did you mean "now"/],
    ['pricingTable', () => pricingTable({ m: { input: 1, output: 1, cache_read: 0.5 } as never }), /pricingTable: m: unknown option "cache_read"/],
  ])('refuses a misspelt key of %s with a TypeError naming the entry', (_name, call, message) => {
    expect(call).toThrow(TypeError)
    expect(call).toThrow(message)
  })

  it('refuses an empty keyPrefix, which would put every tenant on the same keys', () => {
    expect(() => redisStore(client, { keyPrefix: '' })).toThrow(/redisStore: keyPrefix must be a non-empty string, got ""/)
    expect(() => circuitBreaker({ keyPrefix: '' })).toThrow(/circuitBreaker: keyPrefix must be a non-empty string, got ""/)
  })

  it('refuses a breaker option misspelt inside createGate', () => {
    expect(() => createGate({ providers: scripted([validRefundJson]), breaker: { threshold: 3 } as never })).toThrow(
      /circuitBreaker: unknown option "threshold"/,
    )
  })

  it.each([2 ** 31, 2 ** 40, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '100'])(
    'refuses a commandTimeoutMs of %s on both Redis stores (a timer of 2^31 ms fires after 1 ms)',
    (ms) => {
      expect(() => redisStore(client, { commandTimeoutMs: ms as number })).toThrow(
        /redisStore: commandTimeoutMs must be a whole number of milliseconds from 1 to 2147483647/,
      )
      expect(() => redisSessionStore(client as never, { commandTimeoutMs: ms as number })).toThrow(/redisSessionStore: commandTimeoutMs/)
    },
  )

  it('accepts the longest timer there is', () => {
    expect(() => redisStore(client, { commandTimeoutMs: 2 ** 31 - 1 })).not.toThrow()
  })

  it.each([
    ['sharedBudget ttlMs', () => sharedBudget({ store, key: 'b', usd: 1, ttlMs: 2 ** 31 }), /sharedBudget: ttlMs/],
    ['sharedBudget reservationTtlMs', () => sharedBudget({ store, key: 'b', usd: 1, reservationTtlMs: 2 ** 31 }), /sharedBudget: reservationTtlMs/],
    ['sharedBudget maxWaitMs', () => sharedBudget({ store, key: 'b', usd: 1, maxWaitMs: 2 ** 31 }), /sharedBudget: maxWaitMs/],
    ['sharedRateLimit windowMs', () => sharedRateLimit({ store, key: 'r', limit: 1, windowMs: 2 ** 31 }), /sharedRateLimit: windowMs/],
    ['circuitBreaker cooldownMs', () => circuitBreaker({ cooldownMs: 2 ** 31 }), /circuitBreaker: cooldownMs/],
  ])('refuses a duration of 2^31 ms: %s', (_name, call, message) => {
    expect(call).toThrow(RangeError)
    expect(call).toThrow(message)
  })

  it('exports the checks of the shared Redis call options, for every Redis store to reuse', () => {
    const checks = redisCallChecks('myStore')
    expect(Object.keys(checks).sort()).toEqual(['commandTimeoutMs', 'durable', 'maxPending'])
    expect(checks.commandTimeoutMs(2 ** 31)).toMatch(/whole number of milliseconds/)
    expect(checks.commandTimeoutMs(100)).toBeUndefined()
    expect(() => checks.durable({ replica: 1, timeoutMs: 5 })).toThrow(/myStore: durable: unknown option "replica" \(did you mean "replicas"\?\)/)
  })

  it('refuses any key a factory does not declare, and names it', () => {
    for (const factory of FACTORIES) {
      fc.assert(
        fc.property(
          fc.string({ minLength: 1, maxLength: 20 }).filter((key) => !factory.keys.includes(key) && key !== '__proto__'),
          (key) => {
            expect(() => factory.call({ [key]: 1 })).toThrow(TypeError)
            expect(() => factory.call({ [key]: 1 })).toThrow(`${factory.name}: unknown option ${JSON.stringify(key)}`)
          },
        ),
        { numRuns: 50 },
      )
    }
  })
})
