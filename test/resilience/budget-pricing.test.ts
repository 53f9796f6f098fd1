import { describe, expect, it } from 'vitest'
import { Agent, createGate, isReliabilityFailFastError, maxCostRule, memoryStore, sharedBudget } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, validRefundJson } from '../support/schemas.ts'

const SAYS_WHAT_TO_SET = /has no prices to count with .*never stop: set pricing .*or priceUsage on the gate/

describe('a budget without prices', () => {
  it('refuses a shared budget when the gate is built, saying what to set', () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1 })
    expect(() => createGate({ providers: scripted([validRefundJson]), budget })).toThrow(TypeError)
    expect(() => createGate({ providers: scripted([validRefundJson]), budget })).toThrow(SAYS_WHAT_TO_SET)
    expect(() => createGate({ providers: scripted([validRefundJson]), budget })).toThrow(/or give the budget a fixed reserveUsd/)
  })

  it('accepts a shared budget with a fixed reserveUsd, which counts without prices', async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 0.25, reserveUsd: 0.1 })
    const provider = scripted([validRefundJson, validRefundJson, validRefundJson])
    const gate = createGate({ providers: provider, budget })
    await gate.run(ask('1'))
    await gate.run(ask('2'))
    const error = await gate.run(ask('3')).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'budget-exceeded' })
    expect(provider.calls).toBe(2)
  })

  it('refuses a shared budget whose fixed reserveUsd is 0 on a gate without prices: it would charge $0 per attempt and never stop', () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1, reserveUsd: 0 })
    expect(() => createGate({ providers: scripted([validRefundJson]), budget })).toThrow(TypeError)
    expect(() => createGate({ providers: scripted([validRefundJson]), budget })).toThrow(SAYS_WHAT_TO_SET)
    // With prices, a reservation of 0 only means nothing is held before the call: the answer is still charged.
    expect(() => createGate({ providers: scripted([validRefundJson]), model: 'm', pricing: { m: { input: 1, output: 1 } }, budget })).not.toThrow()
  })

  it('refuses a maxCostRule when the gate is built', () => {
    expect(() => createGate({ providers: scripted([validRefundJson]), preCheck: [maxCostRule(1)] })).toThrow(SAYS_WHAT_TO_SET)
  })

  it("refuses an agent's costBudget the same way", () => {
    const build = () =>
      Agent.create({ provider: scripted([validRefundJson]) })
        .costBudget({ usd: 1 })
        .build()
    expect(build).toThrow(TypeError)
    expect(build).toThrow(SAYS_WHAT_TO_SET)
  })

  it('refuses a pricing table that prices no model, as it refuses no pricing', () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1 })
    expect(() => createGate({ providers: scripted([validRefundJson]), model: 'm', pricing: {}, budget })).toThrow(SAYS_WHAT_TO_SET)
    expect(() => createGate({ providers: scripted([validRefundJson]), model: 'm', pricing: {}, preCheck: [maxCostRule(1)] })).toThrow(SAYS_WHAT_TO_SET)
    const build = () =>
      Agent.create({ provider: scripted([validRefundJson]), model: 'm' })
        .reliability({ pricing: {} })
        .costBudget({ usd: 1 })
        .build()
    expect(build).toThrow(SAYS_WHAT_TO_SET)
  })

  it('counts once prices are given', async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1 })
    const gate = createGate({
      providers: scripted([{ content: validRefundJson, usage: { inputTokens: 1_000_000, outputTokens: 0 } }]),
      model: 'm',
      pricing: { m: { input: 0.5, output: 0 } },
      budget,
    })
    await gate.run({ ...ask('1'), maxTokens: 10 })
    expect(await budget.spent()).toBeCloseTo(0.5, 12)
  })
})

describe('a reservation that alone cannot fit the budget', () => {
  // $10 per million output tokens: 4,096 assumed output tokens reserve about $0.04.
  const pricing = { m: { input: 1, output: 10 } }

  it("names assumedOutputTokens and maxTokens when the default reservation is more than a small budget's", async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'small', usd: 0.01 })
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget })
    const error = await gate.run(ask('hi')).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'budget-exceeded' })
    expect((error as Error).message).toMatch(/sharedBudget's assumedOutputTokens \(4096\), as the request sets no maxTokens/)
    expect((error as Error).message).toMatch(/set a lower maxTokens on the request, a lower assumedOutputTokens on sharedBudget, or a fixed reserveUsd/)
    expect(provider.calls).toBe(0)
  })

  it("names the request's maxTokens when it is what does not fit, and lets the call through once it is lowered", async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'small', usd: 0.01 })
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget })
    const error = await gate.run({ ...ask('hi'), maxTokens: 2_000 }).catch((e: unknown) => e)
    expect((error as Error).message).toMatch(/the request's maxTokens \(2000\)/)
    await gate.run({ ...ask('hi'), maxTokens: 100 })
    expect(provider.calls).toBe(1)
  })

  it('names reserveUsd when the fixed reservation is more than the budget has left', async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'fixed', usd: 0.05, reserveUsd: 0.1 })
    const gate = createGate({ providers: scripted([validRefundJson]), budget })
    const error = await gate.run(ask('hi')).catch((e: unknown) => e)
    expect((error as Error).message).toMatch(/the fixed reserveUsd \(\$0\.1\) is more than the budget has left; lower sharedBudget's reserveUsd/)
  })

  it('gives no such advice when the budget is simply spent', async () => {
    const store = memoryStore()
    await store.increment('spent', 1)
    const gate = createGate({ providers: scripted([validRefundJson]), model: 'm', pricing, budget: sharedBudget({ store, key: 'spent', usd: 1 }) })
    const error = await gate.run({ ...ask('hi'), maxTokens: 10 }).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'budget-exceeded' })
    expect((error as Error).message).not.toMatch(/assumedOutputTokens|reserveUsd/)
  })
})
