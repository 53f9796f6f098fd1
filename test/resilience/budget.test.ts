import { describe, expect, it } from 'vitest'
import { createGate, maxCostRule, memoryStore, sharedBudget, strictOutputRules, type GateEventMap } from '../../src/index.ts'
import { isBudgetRule } from '../../src/rules/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { scopeOf } from '../support/scope-of.ts'

// 1 USD per million input tokens, nothing for output: an attempt of 100_000 input tokens costs $0.10.
const pricing = { m: { input: 1, output: 0 } }
const tenCents = (content: string) => ({ content, usage: { inputTokens: 100_000, outputTokens: 0 } })
const invalid = ['nope', '{"orderId": 1}', '{"orderId": 2}', '{"orderId": 3}', '{"orderId": 4}']

const scope = (cumulativeCostUsd: number, lastAttemptCostUsd = 0) => scopeOf({ cumulativeCostUsd, lastAttemptCostUsd })

describe('maxCostRule', () => {
  it('matches once the spend has reached the budget', () => {
    const rule = maxCostRule(1)
    expect(rule.when(scope(0.99, 0.5))).toBe(false)
    expect(rule.when(scope(1))).toBe(true)
    expect(rule.when(scope(1.5))).toBe(true)
  })

  it('with estimate last-attempt, matches when the next attempt would likely overshoot', () => {
    const rule = maxCostRule(1, { estimate: 'last-attempt' })
    expect(rule.when(scope(0.6, 0.4))).toBe(false)
    expect(rule.when(scope(0.7, 0.4))).toBe(true)
  })

  it('accepts a custom estimate', () => {
    const rule = maxCostRule(1, { estimate: () => 0.5 })
    expect(rule.when(scope(0.4))).toBe(false)
    expect(rule.when(scope(0.6))).toBe(true)
  })

  it('fails fast with kind budget-exceeded and carries its budget', () => {
    const rule = maxCostRule(2)
    expect(rule).toMatchObject({ then: 'fail-fast', kind: 'budget-exceeded', budgetUsd: 2 })
    expect(isBudgetRule(rule)).toBe(true)
    expect(rule.when.name).toBe('maxCost')
  })

  it('rejects a negative budget', () => {
    expect(() => maxCostRule(-1)).toThrow(RangeError)
  })
})

describe('maxCostRule in the gate', () => {
  it('stops a retry before the provider is called once failed attempts have spent the budget', async () => {
    const provider = scripted([...invalid.slice(0, 3).map(tenCents), tenCents(validRefundJson)])
    const gate = createGate({ providers: provider, model: 'm', pricing, outputSchema: Refund, preCheck: [maxCostRule(0.2)], postDecide: strictOutputRules(5) })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'budget-exceeded', phase: 'pre-check', costUsd: expect.closeTo(0.2, 12) })
    expect(provider.calls).toBe(2)
  })

  it('with estimate last-attempt, does not start an attempt that would end over budget', async () => {
    const provider = scripted([...invalid.slice(0, 3).map(tenCents), tenCents(validRefundJson)])
    const gate = createGate({
      providers: provider,
      model: 'm',
      pricing,
      outputSchema: Refund,
      preCheck: [maxCostRule(0.25, { estimate: 'last-attempt' })],
      postDecide: strictOutputRules(5),
    })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'budget-exceeded' })
    // $0.20 spent + $0.10 estimated > $0.25, so the third attempt never starts.
    expect(provider.calls).toBe(2)
  })

  it('reports budget_exceeded with the spend, halting', async () => {
    const gate = createGate({
      providers: scripted(invalid.map(tenCents)),
      model: 'm',
      pricing,
      outputSchema: Refund,
      preCheck: [maxCostRule(0.1)],
      postDecide: strictOutputRules(5),
    })
    const events: GateEventMap['budget_exceeded'][] = []
    gate.on('budget_exceeded', (e) => events.push(e))
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'budget-exceeded' })
    expect(events).toEqual([{ runId: expect.any(String), budgetUsd: 0.1, spentUsd: expect.closeTo(0.1, 12), action: 'halt' }])
  })

  it('with action warn, reports and lets the run go on', async () => {
    const provider = scripted([tenCents('nope'), tenCents(validRefundJson)])
    const gate = createGate({
      providers: provider,
      model: 'm',
      pricing,
      outputSchema: Refund,
      preCheck: [maxCostRule(0.05, { onExceed: 'warn' })],
      postDecide: strictOutputRules(3),
    })
    const actions: string[] = []
    gate.on('budget_exceeded', (e) => actions.push(e.action))
    const result = await gate.run(ask('x'))
    expect(result.value).toEqual(JSON.parse(validRefundJson))
    expect(actions).toEqual(['warn'])
  })
})

describe('sharedBudget', () => {
  it('refuses a ttl that would forget every spend at once', () => {
    for (const ttlMs of [0, -1, Number.NaN, 2 ** 31, 1.5])
      expect(() => sharedBudget({ store: memoryStore(), key: 'b', usd: 1, ttlMs })).toThrow(
        'sharedBudget: ttlMs must be a whole number of milliseconds from 1 to 2147483647',
      )
    expect(sharedBudget({ store: memoryStore(), key: 'b', usd: 1, ttlMs: 60_000 }).usd).toBe(1)
  })

  it('counts spend across runs and stops the next run before its provider call', async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'budget:team', usd: 0.3 })
    const provider = scripted([tenCents('nope'), tenCents(validRefundJson), tenCents(validRefundJson), tenCents(validRefundJson)])
    const gate = createGate({ providers: provider, model: 'm', pricing, outputSchema: Refund, budget, postDecide: strictOutputRules(3) })
    await gate.run(ask('first'))
    await gate.run(ask('second'))
    expect(await budget.spent()).toBeCloseTo(0.3, 12)
    await expect(gate.run(ask('third'))).rejects.toMatchObject({
      kind: 'budget-exceeded',
      phase: 'post-decide',
      attempts: [{ status: 'budget_exceeded', rawOutput: undefined, costUsd: 0 }],
    })
    expect(provider.calls).toBe(3)
  })

  it('is shared by two gates on the same store and key', async () => {
    const store = memoryStore()
    const a = createGate({ providers: scripted([tenCents('hi')]), model: 'm', pricing, budget: sharedBudget({ store, key: 'b', usd: 0.1 }) })
    const b = createGate({ providers: scripted([tenCents('hi')]), model: 'm', pricing, budget: sharedBudget({ store, key: 'b', usd: 0.1 }) })
    const events: GateEventMap['budget_exceeded'][] = []
    b.on('budget_exceeded', (e) => events.push(e))
    await a.run(ask('x'))
    await expect(b.run(ask('x'))).rejects.toMatchObject({ kind: 'budget-exceeded' })
    expect(events).toEqual([{ runId: expect.any(String), budgetUsd: 0.1, spentUsd: expect.closeTo(0.1, 12), action: 'halt' }])
  })

  it('fails fast with a typed error when its store cannot reserve', async () => {
    const store = { ...memoryStore(), reserve: () => Promise.reject(new Error('redis down')) }
    const gate = createGate({ providers: scripted(['hi']), budget: sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.01 }) })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ name: 'ReliabilityFailFastError', kind: 'unknown', reason: expect.stringContaining('redis down') })
  })
})
