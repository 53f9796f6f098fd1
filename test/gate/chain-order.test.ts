import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  circuitBreaker,
  createGate,
  memoryStore,
  ProviderError,
  sharedBudget,
  sharedRateLimit,
  type CircuitBreaker,
  type GateConfig,
  type ModelResponse,
  type Provider,
  type SharedBudget,
  type SharedRateLimit,
  type ReliabilityFailFastError,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask } from '../support/schemas.ts'

// 1 USD per million input tokens: an answer of 100,000 input tokens costs $0.10, the whole budget.
const pricing = { m: { input: 1, output: 0 } }
const tenCents = { content: 'hi', usage: { inputTokens: 100_000, outputTokens: 0 } }
const answer: ModelResponse = { content: 'hi', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })

/**
 * The three policies before the provider, each already refusing: the rate limit's window is full,
 * the breaker is open and the budget is spent, by one earlier run on each.
 */
async function refusingPolicies(): Promise<{
  rateLimit: SharedRateLimit
  breaker: CircuitBreaker
  budget: SharedBudget
  pricing: typeof pricing
  model: string
}> {
  const rateLimit = sharedRateLimit({ store: memoryStore(), key: 'rl', limit: 1, windowMs: 3_600_000 })
  const breaker = circuitBreaker({ failureThreshold: 1 })
  const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 0.1 })
  await createGate({ providers: scripted(['hi'], { name: 'p' }), rateLimit }).run(ask('fill the window'))
  await createGate({ providers: scripted([down()], { name: 'p' }), breaker })
    .run(ask('open the breaker'))
    .catch(() => undefined)
  await createGate({ providers: scripted([tenCents], { name: 'p' }), model: 'm', pricing, budget }).run(ask('spend the budget'))
  return { rateLimit, breaker, budget, pricing, model: 'm' }
}

async function firstRefusal(config: Partial<GateConfig<unknown>>): Promise<{ kind: string; calls: number }> {
  const provider = scripted(['never sent'], { name: 'p' })
  const error = (await createGate({ ...config, providers: provider })
    .run(ask('x'))
    .catch((e: unknown) => e)) as ReliabilityFailFastError
  return { kind: error.kind, calls: provider.calls }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('The attempt chain', () => {
  it('runs the rate limit first: a full window refuses before an open breaker or a spent budget', async () => {
    const policies = await refusingPolicies()
    expect(await firstRefusal(policies)).toEqual({ kind: 'rate-limit', calls: 0 })
  })

  it('runs the breaker before the budget: an open breaker refuses before a spent budget', async () => {
    const { rateLimit: _, ...policies } = await refusingPolicies()
    expect(await firstRefusal(policies)).toEqual({ kind: 'circuit-open', calls: 0 })
  })

  it('runs the budget before the provider: a spent budget refuses without calling it', async () => {
    const { budget, pricing: prices, model } = await refusingPolicies()
    expect(await firstRefusal({ budget, pricing: prices, model })).toEqual({ kind: 'budget-exceeded', calls: 0 })
  })

  it('runs the budget inside the deadline: a reservation slower than timeoutMs fails the attempt with kind timeout', async () => {
    vi.useFakeTimers()
    const store = memoryStore()
    const slowStore = {
      ...store,
      reserve: (...args: Parameters<typeof store.reserve>) =>
        new Promise<Awaited<ReturnType<typeof store.reserve>>>((resolve, reject) => setTimeout(() => store.reserve(...args).then(resolve, reject), 500)),
    }
    let calls = 0
    const provider: Provider = {
      name: 'p',
      complete: () => {
        calls++
        return new Promise<ModelResponse>((resolve) => setTimeout(() => resolve(answer), 50))
      },
    }
    const gate = createGate({ providers: provider, timeoutMs: 100, budget: sharedBudget({ store: slowStore, key: 'b', usd: 1, reserveUsd: 0.01 }) })
    const run = gate.run(ask('x')).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(600)
    expect(await run).toMatchObject({ kind: 'timeout' })
    // The reservation granted after the deadline never starts a provider call.
    expect(calls).toBe(0)
  })

  it('a reservation within the deadline leaves the rest of it to the provider', async () => {
    vi.useFakeTimers()
    const store = memoryStore()
    const slowStore = {
      ...store,
      reserve: (...args: Parameters<typeof store.reserve>) =>
        new Promise<Awaited<ReturnType<typeof store.reserve>>>((resolve, reject) => setTimeout(() => store.reserve(...args).then(resolve, reject), 30)),
    }
    const provider: Provider = {
      name: 'p',
      complete: () => new Promise<ModelResponse>((resolve) => setTimeout(() => resolve(answer), 50)),
    }
    const gate = createGate({ providers: provider, timeoutMs: 100, budget: sharedBudget({ store: slowStore, key: 'b', usd: 1, reserveUsd: 0.01 }) })
    const run = gate.run(ask('x'))
    await vi.advanceTimersByTimeAsync(200)
    expect((await run).response.content).toBe('hi')
  })

  it('puts the deadline around the provider: a provider slower than the timeout fails with kind timeout', async () => {
    vi.useFakeTimers()
    const provider: Provider = {
      name: 'p',
      complete: () => new Promise<ModelResponse>((resolve) => setTimeout(() => resolve(answer), 500)),
    }
    const run = createGate({ providers: provider, timeoutMs: 100 })
      .run(ask('x'))
      .catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(600)
    expect(await run).toMatchObject({ kind: 'timeout' })
  })
})
