import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, createGate, maxCostRule, memoryStore, sharedBudget, strictOutputRules, type GateEventMap, type Provider, type Usage } from '../../src/index.ts'
import type { Logger } from '../../src/agent/index.ts'
import { finiteUsage } from '../../src/policies/usage-estimate.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

// 1 USD per million tokens, input and output alike: cost = tokens / 1e6.
const pricing = { m: { input: 1, output: 1 } }
const request = { system: 'x'.repeat(40), messages: [{ role: 'user' as const, content: 'y'.repeat(400) }] }
const answer = { content: 'z'.repeat(80), toolCalls: [] }

/** A provider answering `content` with exactly `usage` (whatever it holds). */
const reporting = (usage: unknown, content = validRefundJson, name = 'p'): Provider & { calls: number } => {
  let calls = 0
  return {
    name,
    get calls() {
      return calls
    },
    complete: () => {
      calls++
      return Promise.resolve({ content, toolCalls: [], usage: usage as Usage, stopReason: 'end' })
    },
  }
}

/** Retries every failure: the budget alone ends the run. */
const retryAll = { when: (s: { errorKind: string }) => s.errorKind !== 'ok', then: 'retry' as const, kind: 'again' }

afterEach(() => {
  vi.restoreAllMocks()
})

describe('finiteUsage', () => {
  it('returns a sound usage as it is', () => {
    const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2 }
    expect(finiteUsage(usage, request, answer)).toBe(usage)
  })

  it.each([
    ['missing', undefined],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['negative', -3],
    ['a string', '12'],
  ])('estimates an input count that is %s from the request at 4 characters per token, marked estimated', (_name, inputTokens) => {
    expect(finiteUsage({ inputTokens, outputTokens: 7 }, request, answer)).toEqual({ inputTokens: 110, outputTokens: 7, estimated: true })
  })

  it('estimates a missing output count from the answer, tool calls included', () => {
    const withCall = { content: 'z'.repeat(8), toolCalls: [{ id: 'c', name: 't', args: { a: 'b' } }] }
    expect(finiteUsage({ inputTokens: 1 }, request, withCall)).toEqual({
      inputTokens: 1,
      outputTokens: Math.ceil((8 + '{"a":"b"}'.length) / 4),
      estimated: true,
    })
  })

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['a string', 'lots'],
  ])('estimates both counts of a usage that is %s', (_name, usage) => {
    expect(finiteUsage(usage, request, answer)).toEqual({ inputTokens: 110, outputTokens: 20, estimated: true })
  })

  it('zeroes unusable cache counts and marks the usage estimated', () => {
    expect(finiteUsage({ inputTokens: 1, outputTokens: 2, cacheReadTokens: Number.NaN }, request, answer)).toEqual({
      inputTokens: 1,
      outputTokens: 2,
      cacheReadTokens: 0,
      estimated: true,
    })
  })
})

describe('a missing token count in the gate', () => {
  it('is estimated, so the attempt costs a finite price instead of nothing', async () => {
    const gate = createGate({ providers: reporting({ inputTokens: undefined, outputTokens: Number.NaN }), model: 'm', pricing, outputSchema: Refund })
    const result = await gate.run(ask('x'.repeat(400)))
    expect(result.usage.estimated).toBe(true)
    expect(result.usage.inputTokens).toBeGreaterThan(0)
    expect(Number.isFinite(result.costUsd) && result.costUsd > 0).toBe(true)
    expect(result.lastAttempt).toMatchObject({ unpriced: false, usage: { estimated: true } })
  })

  it('keeps maxCostRule on: a run of answers without usage stops at the budget', async () => {
    // Each attempt sends about 250_000 tokens' worth of characters: $0.25 at $1 per million.
    const provider = reporting(undefined, 'not json')
    const gate = createGate({ providers: provider, model: 'm', pricing, outputSchema: Refund, preCheck: [maxCostRule(0.5)], postDecide: [retryAll] })
    await expect(gate.run(ask('x'.repeat(1_000_000)))).rejects.toMatchObject({ kind: 'budget-exceeded', phase: 'pre-check' })
    expect(provider.calls).toBe(2)
  })

  it('keeps sharedBudget on: an answer without usage is charged its estimate', async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 10 })
    const gate = createGate({ providers: reporting({ inputTokens: Number.NaN, outputTokens: Number.NaN }), model: 'm', pricing, outputSchema: Refund, budget })
    await gate.run(ask('x'.repeat(400_000)))
    expect(await budget.spent()).toBeCloseTo((100_000 + Math.ceil(validRefundJson.length / 4)) / 1e6, 9)
  })
})

describe('attempts that cannot be priced', () => {
  it.each([
    ['an unknown model', { pricing }, 'gpt-unknown', 'no price for model "gpt-unknown"'],
    [
      'a price function that throws',
      {
        priceUsage: () => {
          throw new Error('price feed down')
        },
      },
      'm',
      'the price function threw: price feed down',
    ],
    ['a price function answering NaN', { priceUsage: () => Number.NaN }, 'm', 'no price for model "m"'],
    [
      'a price function answering Infinity',
      { priceUsage: () => Number.POSITIVE_INFINITY },
      'm',
      'the price function answered Infinity, not a finite non-negative number of USD',
    ],
    ['a price function answering a negative price', { priceUsage: () => -1 }, 'm', 'the price function answered -1, not a finite non-negative number of USD'],
    [
      'a price function answering a string',
      { priceUsage: () => '0.1' as unknown as number },
      'm',
      'the price function answered string, not a finite non-negative number of USD',
    ],
  ])('are reported as cost_unknown for %s, cost 0 and are marked unpriced', async (_name, price, model, reason) => {
    const gate = createGate({ providers: scripted([validRefundJson]), model, ...price, outputSchema: Refund })
    const events: GateEventMap['cost_unknown'][] = []
    gate.on('cost_unknown', (e) => events.push(e))
    const result = await gate.run(ask('x'))
    expect(result.costUsd).toBe(0)
    expect(result.lastAttempt.unpriced).toBe(true)
    expect(events).toEqual([{ runId: result.runId, attempt: 1, provider: 'scripted', model, source: 'meter', reason, usage: expect.any(Object) }])
  })

  it('write a process warning once per reason when nobody listens', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const gate = createGate({ providers: scripted([validRefundJson, validRefundJson]), model: 'unlisted', pricing })
    await gate.run(ask('x'))
    await gate.run(ask('y'))
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0]?.[0]).toContain('no price for model "unlisted"')
    expect(warn.mock.calls[0]?.[1]).toEqual({ code: 'RELIABILITY_GATE_COST_UNKNOWN' })
  })

  it('are counted in scope.unpricedAttempts', async () => {
    const seen: number[] = []
    const gate = createGate({
      providers: scripted(['not json', validRefundJson]),
      model: 'unlisted',
      pricing,
      outputSchema: Refund,
      preCheck: [{ when: (s) => (seen.push(s.unpricedAttempts), false), then: 'ok', kind: 'spy' }],
      postDecide: strictOutputRules(3),
    })
    gate.on('cost_unknown', () => undefined)
    await gate.run(ask('x'))
    expect(seen).toEqual([0, 1])
  })

  it('are marked unpriced and told to listeners, never warned about, for a gate that has neither pricing nor a budget', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const gate = createGate({ providers: scripted([validRefundJson, validRefundJson]) })
    await gate.run(ask('x'))
    expect(warn).not.toHaveBeenCalled()
    const events: { reason: string }[] = []
    gate.on('cost_unknown', (e) => events.push(e))
    const result = await gate.run(ask('x'))
    // Unpriced is not free: $0 is no price.
    expect(result.costUsd).toBe(0)
    expect(result.lastAttempt.unpriced).toBe(true)
    expect(events.map((e) => e.reason)).toEqual(['no pricing is configured'])
    warn.mockRestore()
  })
})

describe('maxCostRule onUnpriced', () => {
  const steps = () => scripted(['not json', '{"orderId": 1}', validRefundJson])

  it("with 'warn' (the default) lets the run go on at $0", async () => {
    const gate = createGate({
      providers: steps(),
      model: 'unlisted',
      pricing,
      outputSchema: Refund,
      preCheck: [maxCostRule(0.01)],
      postDecide: strictOutputRules(3),
    })
    gate.on('cost_unknown', () => undefined)
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ costUsd: 0 })
  })

  it("with 'fail' stops the run before the attempt after an unpriced one", async () => {
    const provider = steps()
    const gate = createGate({
      providers: provider,
      model: 'unlisted',
      pricing,
      outputSchema: Refund,
      preCheck: [maxCostRule(0.01, { onUnpriced: 'fail' })],
      postDecide: strictOutputRules(3),
    })
    gate.on('cost_unknown', () => undefined)
    await expect(gate.run(ask('x'))).rejects.toMatchObject({
      kind: 'budget-exceeded',
      phase: 'pre-check',
      reason: expect.stringContaining('unpriced attempts fail closed'),
    })
    expect(provider.calls).toBe(1)
  })

  it("with 'fail' refuses a gate without any price, at creation", () => {
    expect(() => createGate({ providers: scripted(['x']), preCheck: [maxCostRule(1, { onUnpriced: 'fail' })] })).toThrow(
      /fails closed on unpriced attempts .* but no pricing or priceUsage is given/,
    )
  })

  it("refuses 'fail' with onExceed 'warn', and an unknown onUnpriced", () => {
    expect(() => maxCostRule(1, { onUnpriced: 'fail', onExceed: 'warn' })).toThrow(TypeError)
    expect(() => maxCostRule(1, { onUnpriced: 'ignore' as 'warn' })).toThrow("maxCostRule: onUnpriced must be 'warn' or 'fail', got \"ignore\"")
  })

  it('refuses a gate whose budget rule has no pricing at all, saying what to set', () => {
    expect(() => createGate({ providers: scripted([validRefundJson]), preCheck: [maxCostRule(1)] })).toThrow(
      /createGate: cost budget of \$1 has no prices to count with .* never stop: set pricing .* or priceUsage on the gate/,
    )
  })
})

describe('sharedBudget onUnpriced', () => {
  it("with 'warn' (the default) calls the provider and reports cost_unknown from the budget", async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1 })
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, model: 'unlisted', pricing, budget })
    const sources: string[] = []
    gate.on('cost_unknown', (e) => sources.push(e.source))
    await gate.run(ask('x'))
    expect(provider.calls).toBe(1)
    expect(sources).toEqual(['shared-budget', 'meter'])
    expect(await budget.spent()).toBe(0)
  })

  it("with 'fail' fails the attempt before the provider is called when its reservation cannot be priced", async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1, onUnpriced: 'fail' })
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, model: 'unlisted', pricing, budget })
    gate.on('cost_unknown', () => undefined)
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'budget-exceeded', reason: expect.stringContaining('fails closed') })
    expect(provider.calls).toBe(0)
  })

  it("with 'fail' and a fixed reservation charges the reservation for an answer it cannot price and fails it", async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1, onUnpriced: 'fail', reserveUsd: 0.1 })
    const gate = createGate({ providers: scripted([validRefundJson]), model: 'm', priceUsage: (_u, model) => (model === 'm' ? Number.NaN : 1), budget })
    gate.on('cost_unknown', () => undefined)
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'budget-exceeded' })
    expect(await budget.spent()).toBeCloseTo(0.1, 12)
  })

  it("with 'fail' refuses a gate without any price, at creation", () => {
    expect(() => createGate({ providers: scripted(['x']), budget: sharedBudget({ store: memoryStore(), key: 'b', usd: 1, onUnpriced: 'fail' }) })).toThrow(
      /shared budget "b" fails closed/,
    )
  })
})

describe('Agent costBudget onUnpriced', () => {
  it("with 'fail' halts the run before its next model call once a call could not be priced", async () => {
    const provider = scripted([{ content: '', toolCalls: [{ id: 'c', name: 'missing', args: {} }] }, 'never'])
    const agent = Agent.create({ provider, model: 'unlisted' }).reliability({ pricing }).costBudget({ usd: 1, onUnpriced: 'fail' }).build()
    agent.on('cost_unknown', () => undefined)
    await expect(agent.run('go')).rejects.toMatchObject({ kind: 'budget-exceeded', phase: 'pre-check', reason: expect.stringContaining('could not be priced') })
    expect(provider.calls).toBe(1)
  })

  it('writes a warn line on the logger for every call that could not be priced', async () => {
    const lines: string[] = []
    const logger: Logger = { warn: (line) => lines.push(line) }
    const agent = Agent.create({ provider: scripted(['hello']), model: 'unlisted', name: 'billing', logger })
      .reliability({ pricing })
      .costBudget({ usd: 1 })
      .build()
    await agent.run('go')
    expect(lines).toEqual([
      expect.stringMatching(
        /^cost_unknown agent=billing run=\S+ attempt=1 provider=scripted model=unlisted source=meter reason="no price for model \\"unlisted\\""$/,
      ),
    ])
  })
})
