import { describe, expect, it, vi } from 'vitest'
import { createGate, pricingTable, strictOutputRules, type GateEventMap, type ReliabilityScope } from '../../src/index.ts'
import { costOf } from '../../src/policies/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

// Example prices for the tests only, not real ones.
const table = {
  'model-a': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2.5 },
  'model-a-mini': { input: 0.1, output: 0.4 },
  'model-b': { input: 1, output: 4 },
}

describe('pricingTable', () => {
  it('prices input and output per million tokens', () => {
    const price = pricingTable(table)
    expect(price({ inputTokens: 1_000_000, outputTokens: 0 }, 'model-a', 'p')).toBe(2)
    expect(price({ inputTokens: 1000, outputTokens: 500 }, 'model-a', 'p')).toBeCloseTo(0.006, 12)
  })

  it('prices cache reads and writes separately from uncached input', () => {
    const price = pricingTable(table)
    const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 2_000_000, cacheWriteTokens: 1_000_000 }
    expect(price(usage, 'model-a', 'p')).toBeCloseTo(1 + 2.5, 12)
  })

  it('falls back to the input price for cache tokens when no cache price is given', () => {
    expect(costOf({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 1_000_000 }, { input: 3, output: 9 })).toBe(3)
  })

  it('matches a dated model name by its longest table prefix', () => {
    const price = pricingTable(table)
    expect(price({ inputTokens: 1_000_000, outputTokens: 0 }, 'model-a-mini-2025-01-01', 'p')).toBeCloseTo(0.1, 12)
    expect(price({ inputTokens: 1_000_000, outputTokens: 0 }, 'model-a-2025-01-01', 'p')).toBe(2)
  })

  it('reads a table key as a prefix only up to a separator: another model that merely starts like it is unknown, never priced at its rate', () => {
    const price = pricingTable({ 'gpt-4': { input: 30, output: 60 }, o1: { input: 15, output: 60 } })
    const usage = { inputTokens: 1_000_000, outputTokens: 0 }
    for (const model of ['gpt-4o', 'gpt-4.1', 'gpt-4o-2024-08-06', 'o1x', 'o10']) expect(price(usage, model, 'p'), model).toBeNaN()
    for (const model of ['gpt-4-0613', 'gpt-4@2024', 'o1:free']) expect(price(usage, model, 'p'), model).toBeGreaterThan(0)
  })

  it('prices unknown models NaN (cannot price) and reports each one once', () => {
    const onUnknownModel = vi.fn()
    const price = pricingTable(table, { onUnknownModel })
    const usage = { inputTokens: 100, outputTokens: 100 }
    expect(price(usage, 'mystery', 'p1')).toBeNaN()
    expect(price(usage, 'mystery', 'p1')).toBeNaN()
    expect(price(usage, undefined, 'p2')).toBeNaN()
    expect(onUnknownModel.mock.calls).toEqual([
      ['mystery', 'p1'],
      [undefined, 'p2'],
    ])
  })

  it('rejects negative or missing prices', () => {
    expect(() => pricingTable({ x: { input: -1, output: 1 } })).toThrow(RangeError)
    expect(() => pricingTable({ x: { input: 1, output: Number.NaN } })).toThrow(/x.output/)
    expect(() => pricingTable({ x: { input: 1, output: 1, cacheRead: -2 } })).toThrow(/cacheRead/)
  })

  it('charges the prices it checked: an edit of the table or a getter answering another price later changes nothing', () => {
    let reads = 0
    const prices = {
      'model-a': { input: 2, output: 8 },
      'model-b': {
        get input(): number {
          reads++
          return reads === 1 ? 1 : Number.NaN
        },
        output: 4,
      },
    }
    const price = pricingTable(prices)
    prices['model-a'].input = 2_000
    const usage = { inputTokens: 1_000_000, outputTokens: 0 }
    expect(price(usage, 'model-a', 'p')).toBe(2)
    expect(price(usage, 'model-b', 'p')).toBe(1)
    expect(reads).toBe(1)
  })

  it('shows its name in stack traces', () => {
    expect(pricingTable({}).name).toBe('priceUsage')
  })
})

describe('gate cost accounting', () => {
  const usageSteps = () =>
    scripted([
      { content: 'not json', usage: { inputTokens: 1000, outputTokens: 100 } },
      { content: '{"orderId": 42}', usage: { inputTokens: 2000, outputTokens: 200 } },
      { content: validRefundJson, usage: { inputTokens: 3000, outputTokens: 300 } },
    ])

  it('bills every attempt, failed ones included, with the pricing table given as sugar', async () => {
    const gate = createGate({ providers: usageSteps(), model: 'model-b', pricing: table, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = await gate.run(ask('x'))
    const costs = [1000 * 1 + 100 * 4, 2000 * 1 + 200 * 4, 3000 * 1 + 300 * 4].map((n) => n / 1e6)
    expect(result.attempts.map((a) => a.costUsd)).toEqual(costs.map((c) => expect.closeTo(c, 12)))
    expect(result.costUsd).toBeCloseTo(costs[0]! + costs[1]! + costs[2]!, 12)
    expect(result.usage).toEqual({ inputTokens: 6000, outputTokens: 600 })
  })

  it('prefers priceUsage over pricing when both are given', async () => {
    const gate = createGate({ providers: scripted(['hi']), model: 'model-b', pricing: table, priceUsage: () => 7 })
    expect((await gate.run(ask('x'))).costUsd).toBe(7)
  })

  it('emits cost_tick after every attempt with a running total', async () => {
    const gate = createGate({ providers: usageSteps(), model: 'model-b', pricing: table, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const ticks: GateEventMap['cost_tick'][] = []
    gate.on('cost_tick', (e) => ticks.push(e))
    const result = await gate.run(ask('x'))
    expect(ticks.map((t) => t.attempt)).toEqual([1, 2, 3])
    expect(ticks.every((t) => t.provider === 'scripted' && t.model === 'model-b')).toBe(true)
    expect(ticks[1]?.usage).toEqual({ inputTokens: 2000, outputTokens: 200 })
    expect(ticks.at(-1)?.cumulativeCostUsd).toBeCloseTo(result.costUsd, 12)
    expect(ticks[1]?.cumulativeCostUsd).toBeCloseTo(ticks[0]!.attemptCostUsd + ticks[1]!.attemptCostUsd, 12)
  })

  it('emits no cost_tick for an attempt whose provider call failed', async () => {
    const gate = createGate({
      providers: scripted([new Error('Service Unavailable'), 'hi']),
      pricing: table,
      postDecide: [{ when: (s) => s.errorKind !== 'ok', then: 'retry', kind: 'again' }],
    })
    const ticks: number[] = []
    gate.on('cost_tick', (e) => ticks.push(e.attempt))
    await gate.run(ask('x'))
    expect(ticks).toEqual([2])
  })

  it('shows cumulative tokens and cost in the scope of every rule', async () => {
    const seen: Pick<
      ReliabilityScope,
      'phase' | 'attempt' | 'cumulativeInputTokens' | 'cumulativeOutputTokens' | 'cumulativeCostUsd' | 'lastAttemptCostUsd'
    >[] = []
    const spy = (s: ReliabilityScope) => {
      const { phase, attempt, cumulativeInputTokens, cumulativeOutputTokens, cumulativeCostUsd, lastAttemptCostUsd } = s
      seen.push({ phase, attempt, cumulativeInputTokens, cumulativeOutputTokens, cumulativeCostUsd, lastAttemptCostUsd })
      return false
    }
    const gate = createGate({
      providers: usageSteps(),
      model: 'model-b',
      pricing: table,
      outputSchema: Refund,
      preCheck: [{ when: spy, then: 'fail-fast', kind: 'spy' }],
      postDecide: [{ when: spy, then: 'fail-fast', kind: 'spy' }, ...strictOutputRules(3)],
    })
    await gate.run(ask('x'))
    expect(seen.slice(0, 3)).toEqual([
      { phase: 'pre-check', attempt: 0, cumulativeInputTokens: 0, cumulativeOutputTokens: 0, cumulativeCostUsd: 0, lastAttemptCostUsd: 0 },
      {
        phase: 'post-decide',
        attempt: 1,
        cumulativeInputTokens: 1000,
        cumulativeOutputTokens: 100,
        cumulativeCostUsd: expect.closeTo(0.0014, 12),
        lastAttemptCostUsd: expect.closeTo(0.0014, 12),
      },
      {
        phase: 'pre-check',
        attempt: 1,
        cumulativeInputTokens: 1000,
        cumulativeOutputTokens: 100,
        cumulativeCostUsd: expect.closeTo(0.0014, 12),
        lastAttemptCostUsd: expect.closeTo(0.0014, 12),
      },
    ])
    expect(seen.at(-1)).toMatchObject({ phase: 'post-decide', attempt: 3, cumulativeInputTokens: 6000, cumulativeOutputTokens: 600 })
  })

  it('carries the billed cost of failed attempts on the fail-fast error', async () => {
    const gate = createGate({
      providers: scripted([
        { content: 'nope', usage: { inputTokens: 1_000_000, outputTokens: 0 } },
        { content: '{"orderId": 42}', usage: { inputTokens: 1_000_000, outputTokens: 0 } },
      ]),
      model: 'model-b',
      pricing: table,
      outputSchema: Refund,
      postDecide: strictOutputRules(2),
    })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'schema-retry-exhausted', costUsd: 2, usage: { inputTokens: 2_000_000 } })
  })
})

describe('pricingTable onUnknownModel', () => {
  expectNoUnhandledRejections()

  it('prices an unknown model NaN whatever its reporter throws or rejects with, leaving no unhandled rejection', async () => {
    const usage = { inputTokens: 100, outputTokens: 100 }
    const rejecting = pricingTable(table, { onUnknownModel: () => Promise.reject(new Error('alert service down')) })
    const throwing = pricingTable(table, {
      onUnknownModel: () => {
        throw new Error('alert service down')
      },
    })
    expect(rejecting(usage, 'mystery', 'p')).toBeNaN()
    expect(throwing(usage, 'mystery', 'p')).toBeNaN()
    expect(rejecting(usage, 'model-b', 'p')).toBe(0.0005)
  })
})
