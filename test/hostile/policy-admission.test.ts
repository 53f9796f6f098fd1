import { describe, expect, it } from 'vitest'
import {
  circuitBreaker,
  createGate,
  memoryStore,
  sharedBudget,
  sharedRateLimit,
  type CircuitBreaker,
  type GateEventMap,
  type ModelResponse,
  type SharedRateLimit,
  type StateStore,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { redisSessionStore } from '../../src/sessions/redis-session-store.ts'
import { StateLostError } from '../../src/store/state-lost-error.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'
import { ask } from '../support/schemas.ts'

// The policies asked together (rate limit, breaker, budget) and what they report, against user
// objects and listeners that misbehave. Every case is bounded: a hang is a defect.

const BOUND_MS = 2_000
const answer: ModelResponse = { content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
const never = <T>(): Promise<T> => new Promise<T>(() => {})
const lost = (): StateLostError => new StateLostError({ store: 'test', key: 'k', epochKey: '{k}:rg-epoch', seen: 'e1', found: undefined })

/** A rate limit whose acquire does what the case says; the rest is a real one. */
function rateLimitWith(acquire: SharedRateLimit['acquire']): SharedRateLimit {
  return { ...sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 10, windowMs: 60_000 }), acquire }
}

/** A store (awaited, as a Redis one is) whose calls after the first `answered` never settle. */
function storeThatHangsAfter(answered: number): StateStore {
  const inner = memoryStore()
  let calls = 0
  const call =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      ++calls > answered ? never<R>() : fn(...args)
  return {
    get: call((key: string) => inner.get(key)),
    set: call((key: string, value: string, ttlMs?: number) => inner.set(key, value, ttlMs)),
    increment: call((key: string, by: number, ttlMs?: number) => inner.increment(key, by, ttlMs)),
    compareAndSet: call((key: string, expected: string | undefined, next: string, ttlMs?: number) => inner.compareAndSet(key, expected, next, ttlMs)),
    reserve: call((key: string, id: string, amount: number, limit: number, ttlMs: number) => inner.reserve(key, id, amount, limit, ttlMs)),
    settle: call((key: string, id: string, amount: number, ttlMs?: number) => inner.settle(key, id, amount, ttlMs)),
  }
}

expectNoUnhandledRejections()

describe('policies against hostile user objects', () => {
  it('lets the call through when a rate limit answers a thenable that rejects (advisory)', { timeout: BOUND_MS }, async () => {
    const thenable = { then: (_ok: unknown, fail: (e: unknown) => void) => fail(new Error('store down')) }
    const gate = createGate({ providers: scripted([answer]), rateLimit: rateLimitWith(() => thenable as never) })
    expect((await gate.run(ask('x'))).response.content).toBe('ok')
  })

  it('bounds a rate limit that never answers by timeoutMs: kind timeout, no provider call', { timeout: BOUND_MS }, async () => {
    const provider = scripted([answer])
    const gate = createGate({ providers: provider, rateLimit: rateLimitWith(never), timeoutMs: 40 })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'timeout' })
    expect(provider.calls).toBe(0)
  })

  it('reports a breaker whose record answers a thenable transition as breaker_state, once', { timeout: BOUND_MS }, async () => {
    const real = circuitBreaker({ store: memoryStore(), failureThreshold: 1 })
    const breaker: CircuitBreaker = {
      ...real,
      record: (provider, _permit, _result) => ({ then: (ok: (v: unknown) => void) => ok({ provider, from: 'closed', to: 'open', failures: 1 }) }) as never,
    }
    const gate = createGate({ providers: scripted([answer], { name: 'p' }), breaker })
    const seen: string[] = []
    gate.on('breaker_state', (e) => seen.push(`${e.from}->${e.to}`))
    await gate.run(ask('x'))
    expect(seen).toEqual(['closed->open'])
  })

  it('bounds a breaker whose store never answers the record of a call that answered by timeoutMs', { timeout: BOUND_MS }, async () => {
    const store = storeThatHangsAfter(1)
    const gate = createGate({ providers: scripted([answer], { name: 'p' }), breaker: circuitBreaker({ store }), timeoutMs: 40 })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'timeout' })
  })

  it('bounds a breaker whose store never answers the record of a call that failed by timeoutMs', { timeout: BOUND_MS }, async () => {
    const store = storeThatHangsAfter(1)
    const provider = { name: 'p', complete: (): Promise<never> => Promise.reject(Object.assign(new Error('upstream 503'), { status: 503 })) }
    const gate = createGate({ providers: provider, breaker: circuitBreaker({ store }), timeoutMs: 40 })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'http-5xx' })
  })

  it('bounds a budget whose store never answers the charge of a call that answered by the run signal', { timeout: BOUND_MS }, async () => {
    const store = storeThatHangsAfter(1)
    const gate = createGate({ providers: scripted([answer]), budget: sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.1 }) })
    const controller = new AbortController()
    const run = gate.run(ask('x'), { signal: controller.signal })
    setTimeout(() => controller.abort(new Error('caller gave up')), 20)
    await expect(run).rejects.toMatchObject({ kind: 'aborted' })
  })

  it('fails the attempt closed, without a provider call, when the store answers a reservation that is no verdict', { timeout: BOUND_MS }, async () => {
    const verdicts = [{ granted: true, spent: Number.NaN, held: 0 }, { granted: 'yes', spent: 0, held: 0 }, { granted: true }, null, 'granted']
    for (const verdict of verdicts) {
      const store = memoryStore()
      const liar: StateStore = { ...store, reserve: async () => verdict as never }
      const provider = scripted([answer])
      const gate = createGate({ providers: provider, budget: sharedBudget({ store: liar, key: 'b', usd: 1, reserveUsd: 0.1 }) })
      await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'unknown', cause: { code: 'budget-store-failed' } })
      expect(provider.calls).toBe(0)
    }
  })

  it('fails the attempt closed, without a provider call, when the reserve of a budget throws synchronously', { timeout: BOUND_MS }, async () => {
    const real = sharedBudget({ store: memoryStore(), key: 'b', usd: 1, reserveUsd: 0.1 })
    const budget = {
      ...real,
      reserve: (): never => {
        throw new TypeError('boom')
      },
    }
    const provider = scripted([answer])
    const gate = createGate({ providers: provider, model: 'm', pricing: { m: { input: 1, output: 1 } }, budget })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'unknown', cause: { code: 'budget-store-failed' } })
    expect(provider.calls).toBe(0)
  })
})

describe('state_lost against hostile listeners', () => {
  it('a state_lost listener that throws or rejects leaves the run as it was, reported as listener_error', { timeout: BOUND_MS }, async () => {
    const store = memoryStore()
    const breaker = { ...circuitBreaker({ store }), acquire: () => Promise.reject(lost()) }
    const gate = createGate({ providers: scripted([answer, answer], { name: 'p' }), breaker })
    const errors: GateEventMap['listener_error'][] = []
    gate.on('listener_error', (e) => errors.push(e))
    gate.on('state_lost', () => {
      throw new Error('listener')
    })
    gate.on('state_lost', () => Promise.reject(new Error('async listener')))
    expect((await gate.run(ask('1'))).response.content).toBe('ok')
    expect(errors.map((e) => e.event)).toEqual(['state_lost', 'state_lost'])
  })

  it('reports each loss once, and a name with newlines stays in the payload as given, not in the message', { timeout: BOUND_MS }, async () => {
    const error = lost()
    const breaker = { ...circuitBreaker({ store: memoryStore() }), acquire: () => Promise.reject(error) }
    const gate = createGate({ providers: scripted([answer, answer], { name: 'p\nforged line' }), breaker })
    const events: GateEventMap['state_lost'][] = []
    gate.on('state_lost', (e) => events.push(e))
    await gate.run(ask('1'))
    await gate.run(ask('2'))
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ policy: 'breaker', provider: 'p\nforged line', key: 'k', seen: 'e1', found: undefined })
  })
})

describe('redisSessionStore bound options', () => {
  it('refuses a commandTimeoutMs at or below durable.timeoutMs with a RangeError naming both', () => {
    const client = { evalsha: never, eval: never, pipeline: () => ({}) }
    expect(() => redisSessionStore(client as never, { durable: { replicas: 1, timeoutMs: 100 }, commandTimeoutMs: 100 })).toThrow(
      new RangeError('redisSessionStore: commandTimeoutMs (100) must exceed durable.timeoutMs (100): WAIT holds each answer up to that long'),
    )
  })

  it('refuses an unknown durable option named like a prototype key', () => {
    const client = { evalsha: never, eval: never, pipeline: () => ({}) }
    expect(() => redisSessionStore(client as never, { durable: JSON.parse('{"replicas":1,"timeoutMs":10,"__proto__":1}') })).toThrow(TypeError)
  })
})
