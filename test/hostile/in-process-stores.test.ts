import { describe, expect, it } from 'vitest'
import { circuitBreaker, createGate, memoryStore, ProviderError, sharedBudget, type ModelResponse, type Provider, type StateStore } from '../../src/index.ts'
import { TestAttempt } from '../support/chain-attempt.ts'
import { scripted } from '../../src/providers/index.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'
import { ask } from '../support/schemas.ts'

// The policies answer at once on memoryStore (its synchronous face); these try to make that face
// bypass what the user asked for, or leak what it held.

const answer = (content: string): ModelResponse => ({ content, toolCalls: [], usage: { inputTokens: 10, outputTokens: 10 }, stopReason: 'end' })
const pricing = { m: { input: 1, output: 1 } }

expectNoUnhandledRejections()

describe('policies on an in-process store', () => {
  it('a memoryStore spread into a wrapper is the wrapper: a breaker and a budget call its methods', async () => {
    const inner = memoryStore()
    const calls: string[] = []
    const wrapped: StateStore = {
      ...inner,
      get: (key) => (calls.push(`get ${key}`), inner.get(key)),
      reserve: (...args) => (calls.push('reserve'), inner.reserve(...args)),
      settle: (...args) => (calls.push('settle'), inner.settle(...args)),
    }
    const gate = createGate({
      providers: scripted(['ok'], { name: 'p' }),
      model: 'm',
      pricing,
      breaker: circuitBreaker({ store: wrapped }),
      budget: sharedBudget({ store: wrapped, key: 'b', usd: 1 }),
    })
    await gate.run(ask('x'))
    // Asked together before the call, told together after it, in the table's order.
    expect(calls).toEqual(['get rg:breaker:p', 'reserve', 'get rg:breaker:p', 'settle'])
  })

  it('a Proxy of a memoryStore is the Proxy: every call goes through its trap', async () => {
    const seen: string[] = []
    const inner = memoryStore()
    const store = new Proxy(inner, {
      get(target, name) {
        const value = Reflect.get(target, name)
        return typeof value === 'function' ? (...args: unknown[]) => (seen.push(String(name)), value.apply(target, args)) : value
      },
    })
    const gate = createGate({
      providers: scripted(['ok'], { name: 'p' }),
      model: 'm',
      pricing,
      breaker: circuitBreaker({ store }),
      budget: sharedBudget({ store, key: 'b', usd: 1 }),
    })
    await gate.run(ask('x'))
    expect(seen).toEqual(['get', 'reserve', 'get', 'settle'])
  })

  it('a budget spread into a wrapper is the wrapper: its reserve is the one called', async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1 })
    let reserved = 0
    const wrapped = { ...budget, reserve: (id: string, usd: number) => (reserved++, budget.reserve(id, usd)) }
    const gate = createGate({ providers: scripted(['ok']), model: 'm', pricing, budget: wrapped })
    await gate.run(ask('x'))
    expect(reserved).toBe(1)
  })

  it('an answer that comes after its attempt timed out is not charged, and its reservation is released at once', async () => {
    const store = memoryStore()
    const budget = sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.5 })
    let late: ((r: ModelResponse) => void) | undefined
    const provider: Provider = { name: 'p', complete: () => new Promise<ModelResponse>((resolve) => (late = resolve)) }
    const gate = createGate({ providers: provider, model: 'm', pricing, budget, timeoutMs: 20 })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'timeout' })
    // Released at the timeout: the whole budget can be reserved again.
    expect(await store.reserve('b', 'probe', 1, 1, 60_000)).toMatchObject({ granted: true, spent: 0, held: 0 })
    await store.settle('b', 'probe', 0)
    late?.(answer('too late'))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await budget.spent()).toBe(0)
  })

  it('a spent budget on memoryStore fails the attempt before the provider is called, as on any store', async () => {
    const store = memoryStore()
    await store.increment('b', 1)
    const provider = scripted(['ok'])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget: sharedBudget({ store, key: 'b', usd: 1 }) })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'budget-exceeded' })
    expect(provider.calls).toBe(0)
  })

  it('a breaker on memoryStore whose clock throws lets the call through (advisory), and the run ends normally', async () => {
    const store = memoryStore()
    await store.set('rg:breaker:p', JSON.stringify({ state: 'open', failures: 5, openedAt: 0, probes: 0, probeAt: 0, successes: 0 }))
    const clock = (): number => {
      throw new Error('clock')
    }
    const gate = createGate({ providers: scripted(['ok'], { name: 'p' }), breaker: circuitBreaker({ store, now: clock }) })
    expect((await gate.run(ask('x'))).response.content).toBe('ok')
  })

  it('opens a breaker shared through memoryStore at its threshold and reports the transition once', async () => {
    const store = memoryStore()
    const gate = createGate({
      providers: scripted([new ProviderError('down', { kind: 'http-5xx' })], { name: 'p' }),
      breaker: circuitBreaker({ store, failureThreshold: 1 }),
    })
    const seen: string[] = []
    gate.on('breaker_state', (e) => seen.push(`${e.from}->${e.to}`))
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'http-5xx' })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'circuit-open' })
    expect(seen).toEqual(['closed->open'])
    expect(JSON.parse((await store.get('rg:breaker:p')) as string)).toMatchObject({ state: 'open', failures: 1 })
  })
})

describe('an attempt’s closers', () => {
  const slot = (): TestAttempt =>
    new TestAttempt({
      runId: 'r',
      attempt: 1,
      request: { messages: [] },
      baseRequest: { messages: [] },
      provider: 'p',
      providerIdx: 0,
      model: undefined,
      metadata: undefined,
      turn: undefined,
    })

  it('run once when the attempt settles, a throwing one contained, the others still run', () => {
    const s = slot()
    const ran: string[] = []
    s.onClose(() => ran.push('a'))
    s.onClose(() => {
      throw new Error('closer')
    })
    s.onClose(() => ran.push('c'))
    s.close()
    s.close()
    expect(ran).toEqual(['a', 'c'])
  })

  it('runs at once when registered after the attempt settled', () => {
    const s = slot()
    s.close()
    let ran = false
    s.onClose(() => {
      ran = true
    })
    expect(ran).toBe(true)
  })
})
