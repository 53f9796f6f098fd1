import { describe, expect, it } from 'vitest'
import {
  circuitBreaker,
  createGate,
  memoryStore,
  ProviderError,
  sharedBudget,
  sharedRateLimit,
  type GateEventMap,
  type ModelResponse,
  type Provider,
  type StateStore,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'
import { ask } from '../support/schemas.ts'

// The policies (rate limit, breaker, budget) are asked together before the call and told together
// after it: on a shared store that is one round trip each way. These pin what that must not change.

const pricing = { m: { input: 1, output: 1 } }
const answer: ModelResponse = { content: 'ok', toolCalls: [], usage: { inputTokens: 10, outputTokens: 10 }, stopReason: 'end' }

/** A store that answers each call only when released, and logs when each call was made and answered. */
function gatedStore(): StateStore & { log: string[]; release(): void } {
  const inner = memoryStore()
  const log: string[] = []
  let waiting: (() => void)[] = []
  const gated =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      log.push(`call ${name}`)
      return new Promise<void>((resolve) => waiting.push(resolve)).then(() => {
        log.push(`answer ${name}`)
        return fn(...args)
      })
    }
  return {
    log,
    release() {
      const now = waiting
      waiting = []
      for (const go of now) go()
    },
    get: gated('get', inner.get),
    set: gated('set', inner.set),
    increment: gated('increment', inner.increment),
    compareAndSet: gated('compareAndSet', inner.compareAndSet),
    reserve: gated('reserve', inner.reserve),
    settle: gated('settle', inner.settle),
  }
}

/** Releases the store's waiting calls until `work` settles. */
async function drive<T>(store: { release(): void }, work: Promise<T>): Promise<T> {
  let done = false
  const settled = work.finally(() => {
    done = true
  })
  for (let i = 0; i < 1000 && !done; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0))
    store.release()
  }
  return settled
}

expectNoUnhandledRejections()

describe('the policies asked together', () => {
  it('sends every policy’s store call before any answers, before the call and again after it', async () => {
    const store = gatedStore()
    const gate = createGate({
      providers: scripted([answer], { name: 'p' }),
      model: 'm',
      pricing,
      rateLimit: sharedRateLimit({ store, key: 'rl', limit: 10, windowMs: 60_000 }),
      breaker: circuitBreaker({ store }),
      budget: sharedBudget({ store, key: 'b', usd: 1 }),
    })
    await drive(store, gate.run(ask('x')))
    const before = store.log.slice(0, 3)
    expect(before.every((l) => l.startsWith('call '))).toBe(true)
    expect(store.log.slice(3, 6).every((l) => l.startsWith('answer '))).toBe(true)
    // After the call: the breaker's read and the budget's charge, again sent together.
    expect(store.log.slice(6, 8)).toEqual(['call get', 'call settle'])
    expect(store.log.slice(8)).toEqual(['answer get', 'answer settle'])
  })

  it('fails with the first refusal in the table’s order, and the budget gives its reservation back', async () => {
    const store = memoryStore()
    const rateLimit = sharedRateLimit({ store, key: 'rl', limit: 1, windowMs: 3_600_000 })
    const budget = sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.25 })
    const gate = createGate({ providers: scripted([answer, answer], { name: 'p' }), model: 'm', pricing, rateLimit, budget })
    await gate.run(ask('fills the window'))
    const spent = await budget.spent()
    const exceeded: unknown[] = []
    gate.on('budget_exceeded', (e) => exceeded.push(e))
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'rate-limit' })
    // Given back: nothing held, nothing more spent.
    expect(await store.reserve('b', 'probe', 1 - spent, 1, 60_000)).toMatchObject({ granted: true, held: 0 })
    expect(await budget.spent()).toBe(spent)
    expect(exceeded).toEqual([])
  })

  it('reports only the refusal it fails with: an open breaker over a spent budget says nothing of the budget', async () => {
    const store = memoryStore()
    await store.increment('b', 1)
    const breaker = circuitBreaker({ store, failureThreshold: 1 })
    const budget = sharedBudget({ store, key: 'b', usd: 1 })
    await createGate({ providers: scripted([new ProviderError('down', { kind: 'http-5xx' })], { name: 'p' }), breaker })
      .run(ask('opens it'))
      .catch(() => undefined)
    const gate = createGate({ providers: scripted([answer], { name: 'p' }), model: 'm', pricing, breaker, budget })
    const exceeded: GateEventMap['budget_exceeded'][] = []
    gate.on('budget_exceeded', (e) => exceeded.push(e))
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'circuit-open' })
    expect(exceeded).toEqual([])
  })

  it('gives a half-open probe back when another policy refuses its attempt', async () => {
    let t = 0
    const store = memoryStore({ now: () => t })
    const breaker = circuitBreaker({ store, failureThreshold: 1, cooldownMs: 100, now: () => t })
    const rateLimit = sharedRateLimit({ store, key: 'rl', limit: 1, windowMs: 3_600_000 })
    await rateLimit.acquire('p') // the window is full from here on
    await createGate({ providers: scripted([new ProviderError('down', { kind: 'http-5xx' })], { name: 'p' }), breaker })
      .run(ask('opens it'))
      .catch(() => undefined)
    t = 200 // past the cooldown: the next acquire is the one probe
    const gate = createGate({ providers: scripted([answer], { name: 'p' }), rateLimit, breaker })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'rate-limit' })
    // The probe slot came back: the next attempt may probe.
    expect((await breaker.state('p')).probes).toBe(0)
    expect(await breaker.acquire('p')).toMatchObject({ allowed: true, probe: true })
  })

  it('fails an attempt that answered when the budget cannot charge it, the breaker counting a success', async () => {
    const inner = memoryStore()
    const store: StateStore = {
      ...inner,
      settle: (key, id, amount, ttl) => (amount > 0 ? Promise.reject(new Error('store down')) : inner.settle(key, id, amount, ttl)),
    }
    const breaker = circuitBreaker({ store: inner, failureThreshold: 1 })
    const gate = createGate({ providers: scripted([answer], { name: 'p' }), model: 'm', pricing, breaker, budget: sharedBudget({ store, key: 'b', usd: 1 }) })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'unknown' })
    expect((await breaker.state('p')).state).toBe('closed')
  })

  it('fails the attempt when a policy’s admit throws, giving back what the others took', async () => {
    const store = memoryStore()
    const budget = sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.5 })
    const throwing = {
      ...sharedRateLimit({ store, key: 'rl', limit: 10, windowMs: 60_000 }),
      acquire: (): never => {
        throw new Error('sync throw')
      },
    }
    const provider: Provider = scripted([answer], { name: 'p' })
    const gate = createGate({ providers: provider, model: 'm', pricing, rateLimit: throwing, budget })
    // The rate limit is advisory: its failure lets the call through.
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ response: { content: 'ok' } })
    expect(await store.reserve('b', 'probe', 1 - (await budget.spent()), 1, 60_000)).toMatchObject({ granted: true, held: 0 })
  })
})
