import { setTimeout as sleep } from 'node:timers/promises'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { circuitBreaker, createGate, ProviderError, sharedBudget, sharedRateLimit, type GateEventMap } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { isStateLostError, redisStore, StateLostError } from '../../src/store/redis/index.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { ask, validRefundJson } from '../support/schemas.ts'
import { useRedis } from './support/use-redis.ts'

const redis = useRedis()
const BOUND_MS = 10_000

// 1 USD per million input tokens: an answer of 100_000 input tokens costs $0.10.
const pricing = { m: { input: 1, output: 0 } }
const tenCents = { content: validRefundJson, usage: { inputTokens: 100_000, outputTokens: 0 } }
const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })

/** A store that records every state-lost report. */
function reportingStore(prefix: string) {
  const lost: StateLostError[] = []
  return { lost, store: redisStore(redis.client, { keyPrefix: prefix, onStateLost: (e) => void lost.push(e) }) }
}

/** Waits until the client is connected again after its server restarted. */
async function reconnected(): Promise<void> {
  const deadline = Date.now() + 5_000
  while (redis.client.status !== 'ready') {
    if (Date.now() > deadline) throw new Error(`client still ${redis.client.status} after the restart`)
    await sleep(20)
  }
}

describeWith(redisServer)('redisStore when its state vanishes', () => {
  beforeEach(async () => {
    await redis.client.flushall()
  })

  describe('a shared budget', () => {
    it('fails closed after FLUSHALL, with code budget-state-lost, until it is re-armed', { timeout: BOUND_MS }, async () => {
      const { store, lost } = reportingStore('flush:')
      const budget = sharedBudget({ store, key: 'budget', usd: 0.25 })
      const provider = scripted([tenCents, tenCents, tenCents, tenCents])
      const gate = createGate({ providers: provider, model: 'm', pricing, budget })
      const events: GateEventMap['state_lost'][] = []
      gate.on('state_lost', (e) => events.push(e))
      await gate.run(ask('1'))
      await gate.run(ask('2'))
      expect(await budget.spent()).toBeCloseTo(0.2, 12)
      await redis.client.flushall()

      for (const n of ['3', '4']) {
        const error = await gate.run(ask(n)).catch((e: unknown) => e)
        expect(error).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('vanished'), cause: { code: 'budget-state-lost' } })
        expect(isStateLostError((error as { cause: { cause: unknown } }).cause.cause)).toBe(true)
      }
      expect(provider.calls).toBe(2)
      // Reported once, when the store noticed; the second refusal comes from the latched budget.
      expect(lost).toHaveLength(1)
      expect(lost[0]).toMatchObject({ name: 'StateLostError', key: 'flush:budget', epochKey: '{flush:budget}:rg-epoch', found: undefined })
      expect(budget.lost).toBe(lost[0])
      // The gate says so once too, as a typed event of the run that noticed.
      expect(events).toEqual([
        expect.objectContaining({ policy: 'budget', key: 'flush:budget', found: undefined, seen: lost[0]?.seen, message: expect.stringContaining('vanished') }),
      ])

      budget.rearm()
      expect(budget.lost).toBeUndefined()
      await gate.run(ask('5'))
      expect(provider.calls).toBe(3)
      expect(await budget.spent()).toBeCloseTo(0.1, 12)
    })

    it('fails closed after a restart of the server without persistence', { timeout: BOUND_MS }, async () => {
      const { store, lost } = reportingStore('restart:')
      const budget = sharedBudget({ store, key: 'budget', usd: 1 })
      expect((await budget.reserve('r1', 0.6)).granted).toBe(true)
      await budget.settle('r1', 0.6)
      await redis.server.restart()
      await reconnected()
      await expect(budget.reserve('r2', 0.6)).rejects.toSatisfy(isStateLostError)
      await expect(budget.settle('r2', 0)).rejects.toSatisfy(isStateLostError)
      expect(lost).toHaveLength(1)
      // Nothing was reserved while the state was lost.
      expect(await redis.client.keys('*')).toEqual([])
    })

    it('notices an epoch written anew by a process that started after the flush', { timeout: BOUND_MS }, async () => {
      const before = reportingStore('anew:')
      const budget = sharedBudget({ store: before.store, key: 'budget', usd: 1 })
      await budget.reserve('r1', 0.5)
      await redis.client.flushall()
      // A process that never saw the old epoch cannot know: it starts the state again.
      const fresh = reportingStore('anew:')
      expect((await sharedBudget({ store: fresh.store, key: 'budget', usd: 1 }).reserve('r2', 0.5)).granted).toBe(true)
      expect(fresh.lost).toEqual([])
      await expect(budget.reserve('r3', 0.1)).rejects.toSatisfy(isStateLostError)
      expect(before.lost[0]?.found).toEqual(expect.any(String))
      expect(before.lost[0]?.found).not.toBe(before.lost[0]?.seen)
    })
  })

  it('reports a loss that several runs in flight find once per group, to onStateLost and as state_lost', { timeout: BOUND_MS }, async () => {
    const { store, lost } = reportingStore('flight:')
    const budget = sharedBudget({ store, key: 'budget', usd: 5 })
    const breaker = circuitBreaker({ store, failureThreshold: 5, cooldownMs: 60_000 })
    const rateLimit = sharedRateLimit({ store, key: 'rl', limit: 100, windowMs: 60_000 })
    const provider = scripted(
      Array.from({ length: 5 }, () => tenCents),
      { name: 'llm' },
    )
    const gate = createGate({ providers: provider, model: 'm', pricing, budget, breaker, rateLimit })
    const events: GateEventMap['state_lost'][] = []
    gate.on('state_lost', (e) => events.push(e))
    await gate.run(ask('1'))
    await redis.client.flushall()

    const runs = await Promise.allSettled(['2', '3', '4', '5'].map((n) => gate.run(ask(n))))
    expect(runs.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected'])
    // One FLUSHALL, one loss per group: each reported once, however many calls were in flight on it.
    expect(lost.map((e) => e.key).sort()).toEqual(['flight:budget', 'flight:rg:breaker:llm', expect.stringMatching(/^flight:\{rl:llm\}:\d+$/)])
    expect(events.map((e) => e.policy).sort()).toEqual(['breaker', 'budget', 'rate-limit'])
    expect(budget.lost).toBe(lost.find((e) => e.key === 'flight:budget'))
  })

  it('does not latch a re-armed budget again on a call sent before the loss was found', { timeout: BOUND_MS }, async () => {
    // A client whose replies wait for the test: the n-th script call answers once `release[n]` is called.
    const release: (() => void)[] = []
    const held =
      <A extends unknown[]>(call: (...args: A) => Promise<unknown>) =>
      async (...args: A) => {
        const answered = new Promise<void>((resolve) => release.push(resolve))
        const reply = await call(...args)
        await answered
        return reply
      }
    const client = { evalsha: held(redis.client.evalsha.bind(redis.client)), eval: held(redis.client.eval.bind(redis.client)) }
    const lost: StateLostError[] = []
    const budget = sharedBudget({ store: redisStore(client, { keyPrefix: 'rearm:', onStateLost: (e) => void lost.push(e) }), key: 'budget', usd: 1 })
    const first = budget.reserve('r1', 0.1)
    release.shift()?.()
    expect((await first).granted).toBe(true)
    await redis.client.flushall()

    const early = budget.reserve('r2', 0.1).catch((e: unknown) => e)
    const late = budget.reserve('r3', 0.1).catch((e: unknown) => e)
    await vi.waitFor(() => expect(release).toHaveLength(2))
    release.shift()?.()
    expect(isStateLostError(await early)).toBe(true)
    expect(budget.lost).toBe(await early)
    budget.rearm()
    release.shift()?.()
    // The late call was sent before the loss was found: it did nothing, and is the same loss, already re-armed.
    expect(await late).toBe(await early)
    expect(budget.lost).toBeUndefined()
    expect(lost).toHaveLength(1)
    const next = budget.reserve('r4', 0.1)
    release.shift()?.()
    expect((await next).granted).toBe(true)
  })

  it('reports a breaker whose state vanished, lets the call through and starts it closed', { timeout: BOUND_MS }, async () => {
    const { store, lost } = reportingStore('breaker:')
    const breaker = circuitBreaker({ store, failureThreshold: 2, cooldownMs: 60_000 })
    const failing = createGate({ providers: scripted([down(), down()], { name: 'llm' }), breaker })
    await expect(failing.run(ask('1'))).rejects.toMatchObject({ kind: 'http-5xx' })
    await expect(failing.run(ask('2'))).rejects.toMatchObject({ kind: 'http-5xx' })
    expect((await breaker.state('llm')).state).toBe('open')
    await redis.client.flushall()

    const healthy = scripted([validRefundJson], { name: 'llm' })
    const gate = createGate({ providers: healthy, breaker })
    const events: GateEventMap['state_lost'][] = []
    gate.on('state_lost', (e) => events.push(e))
    const result = await gate.run(ask('3'))
    expect(result.provider).toBe('llm')
    expect(events).toEqual([expect.objectContaining({ runId: result.runId, policy: 'breaker', provider: 'llm', key: 'breaker:rg:breaker:llm' })])
    expect(healthy.calls).toBe(1)
    expect(lost.map((e) => e.key)).toEqual(['breaker:rg:breaker:llm'])
    expect((await breaker.state('llm')).state).toBe('closed')
  })

  it('reports a rate limit whose window vanished once, then counts the window again from zero', { timeout: BOUND_MS }, async () => {
    const { store, lost } = reportingStore('rate:')
    const limit = sharedRateLimit({ store, key: 'rl', limit: 2, windowMs: 60_000, now: () => 30_000 })
    expect((await limit.acquire('llm')).allowed).toBe(true)
    expect((await limit.acquire('llm')).allowed).toBe(true)
    expect((await limit.acquire('llm')).allowed).toBe(false)
    await redis.client.flushall()
    await expect(limit.acquire('llm')).rejects.toSatisfy(isStateLostError)
    expect(lost.map((e) => e.epochKey)).toEqual(['rate:{rl:llm}:rg-epoch'])
    expect(await limit.acquire('llm')).toEqual({ allowed: true, remaining: 1 })
  })

  it('reports a rate limit whose window vanished as state_lost on the gate, and lets the call through', { timeout: BOUND_MS }, async () => {
    const { store } = reportingStore('rate-gate:')
    const rateLimit = sharedRateLimit({ store, key: 'rl', limit: 5, windowMs: 60_000 })
    const provider = scripted([validRefundJson, validRefundJson], { name: 'llm' })
    const gate = createGate({ providers: provider, rateLimit })
    const events: GateEventMap['state_lost'][] = []
    gate.on('state_lost', (e) => events.push(e))
    await gate.run(ask('1'))
    await redis.client.flushall()
    await gate.run(ask('2'))
    expect(provider.calls).toBe(2)
    expect(events).toEqual([expect.objectContaining({ policy: 'rate-limit', provider: 'llm', found: undefined })])
  })

  it('does not report state another process created, nor a counter that expired by its ttl', { timeout: BOUND_MS }, async () => {
    const first = reportingStore('calm:')
    const second = reportingStore('calm:')
    await first.store.increment('window', 1, 50)
    expect(await second.store.increment('window', 1)).toBe(2)
    await sleep(120)
    expect(await first.store.get('window')).toBeUndefined()
    expect(await second.store.increment('window', 1)).toBe(1)
    expect([...first.lost, ...second.lost]).toEqual([])
  })

  it('rejects with the StateLostError whatever onStateLost throws or rejects with', { timeout: BOUND_MS }, async () => {
    for (const onStateLost of [
      () => {
        throw new Error('reporter down')
      },
      () => Promise.reject(new Error('reporter down')) as unknown as undefined,
    ]) {
      await redis.client.flushall()
      const store = redisStore(redis.client, { keyPrefix: 'hostile:', onStateLost })
      await store.set('k', 'v')
      await redis.client.flushall()
      await expect(store.get('k')).rejects.toSatisfy(isStateLostError)
      expect(await store.get('k')).toBeUndefined()
    }
  })

  it('refuses an onStateLost that is not a function with a TypeError naming it', () => {
    expect(() => redisStore(redis.client, { onStateLost: 'log' as never })).toThrow(new TypeError('redisStore: onStateLost must be a function, got "log"'))
  })
})

describe('StateLostError', () => {
  it('is recognised by its brand, also from another realm, and nothing else is', () => {
    const lost = new StateLostError({ store: 'redisStore', key: 'k', epochKey: '{k}:rg-epoch', seen: 'a', found: undefined })
    expect(lost.message).toBe('redisStore: the state of "k" vanished (epoch a seen before, it is gone): a restart without persistence, an eviction or a flush')
    expect(isStateLostError(lost)).toBe(true)
    expect(isStateLostError({ [Symbol.for('reliability-gate.StateLostError')]: true })).toBe(true)
    expect(isStateLostError(new Error('StateLostError'))).toBe(false)
    expect(isStateLostError({ name: 'StateLostError' })).toBe(false)
  })
})
