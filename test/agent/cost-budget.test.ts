import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError, strictOutputRules, type GateEventMap, type Usage } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { call, invalidEvent, makeTools, turn, validEvent } from './tool-fixtures.ts'

// Dyadic prices keep every sum exact, so totals can be compared with toBe.
const priceUsage = (usage: Usage) => (usage.inputTokens + usage.outputTokens) / 1024
const usage = (inputTokens: number, outputTokens: number): Usage => ({ inputTokens, outputTokens })
const costing = (usd: number, step: string): ScriptedStep => ({ content: step, usage: { inputTokens: usd * 1024, outputTokens: 0 } })
const Verdict = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]) }, { additionalProperties: false })

function billed(steps: readonly ScriptedStep[]) {
  const provider = scripted(steps)
  const tools = makeTools()
  const agent = Agent.create({ provider, model: 'm' })
    .outputSchema(Type.Object({ booked: Type.Boolean() }))
    .tool(tools.eventTool)
    .reliability({ postDecide: strictOutputRules(3), priceUsage })
    .build()
  return { provider, agent }
}

describe('Agent cost', () => {
  it('bills failed attempts and tool-argument retries', async () => {
    const { provider, agent } = billed([
      { ...turn(call('create_event', invalidEvent)), usage: usage(100, 10) },
      { ...turn(call('create_event', validEvent)), usage: usage(120, 12) },
      { content: 'not json', usage: usage(200, 5) },
      { content: '{"booked": true}', usage: usage(230, 6) },
    ])
    const result = await agent.runDetailed('book')
    expect(provider.calls).toBe(4)
    expect(result.attempts).toHaveLength(4)
    expect(result.usage).toEqual(usage(650, 33))
    expect(result.costUsd).toBe(683 / 1024)
    expect(result.attempts.reduce((sum, a) => sum + a.costUsd, 0)).toBe(result.costUsd)
  })

  it('bills every attempt of a failed run on the error', async () => {
    const { agent } = billed([
      { ...turn(call('create_event', invalidEvent)), usage: usage(100, 10) },
      { ...turn(call('create_event', validEvent)), usage: usage(120, 12) },
      { content: 'nope', usage: usage(200, 5) },
      { content: '{"booked": 1}', usage: usage(210, 5) },
      { content: '{"booked": "yes"}', usage: usage(220, 5) },
    ])
    const error = await agent.run('book').catch((e: unknown) => e)
    if (!isReliabilityFailFastError(error)) throw new Error('expected a fail-fast error')
    expect(error.kind).toBe('schema-retry-exhausted')
    expect(error.attempts).toHaveLength(5)
    expect(error.usage).toEqual(usage(850, 37))
    expect(error.costUsd).toBe(887 / 1024)
  })

  it('halts before the provider is called once the run has spent its budget', async () => {
    const provider = scripted([
      { ...turn(call('create_event', validEvent)), usage: usage(512, 0) },
      { content: 'Done.', usage: usage(1, 1) },
    ])
    const tools = makeTools()
    const agent = Agent.create({ provider }).tool(tools.eventTool).reliability({ priceUsage }).costBudget({ usd: 0.5, onExceed: 'halt' }).build()
    const exceeded: GateEventMap['budget_exceeded'][] = []
    agent.on('budget_exceeded', (e) => exceeded.push(e))
    const error = await agent.run('book').catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'budget-exceeded', phase: 'pre-check', costUsd: 0.5 })
    expect(provider.calls).toBe(1)
    expect(exceeded).toEqual([{ runId: expect.any(String), turn: 2, budgetUsd: 0.5, spentUsd: 0.5, action: 'halt' }])
    expect(agent.history).toEqual([])
  })

  it('counts tool-argument retries against the budget', async () => {
    const provider = scripted([{ ...turn(call('create_event', invalidEvent)), usage: usage(1024, 0) }, 'unreached'])
    const tools = makeTools()
    const agent = Agent.create({ provider }).tool(tools.eventTool).reliability({ priceUsage }).costBudget({ usd: 1 }).build()
    await expect(agent.run('book')).rejects.toMatchObject({ kind: 'budget-exceeded' })
    expect(provider.calls).toBe(1)
  })

  it('warns once and goes on with onExceed warn', async () => {
    const provider = scripted([
      { ...turn(call('create_event', validEvent, 'a')), usage: usage(1024, 0) },
      { ...turn(call('create_event', validEvent, 'b')), usage: usage(1024, 0) },
      'Done.',
    ])
    const tools = makeTools()
    const agent = Agent.create({ provider }).tool(tools.eventTool).reliability({ priceUsage }).costBudget({ usd: 0.5, onExceed: 'warn' }).build()
    const exceeded: GateEventMap['budget_exceeded'][] = []
    agent.on('budget_exceeded', (e) => exceeded.push(e))
    expect(await agent.run('book')).toBe('Done.')
    expect(exceeded).toEqual([{ runId: expect.any(String), turn: 2, budgetUsd: 0.5, spentUsd: 1, action: 'warn' }])
  })

  it('counts a spend equal to the budget up to float error as reaching it', async () => {
    // $0.3 + $0.6 adds up to 0.8999999999999999 in floats: the $0.9 budget is spent all the same.
    const tenths = (u: Usage) => u.outputTokens / 10
    const provider = scripted([
      { ...turn(call('create_event', validEvent, 'a')), usage: usage(0, 3) },
      { ...turn(call('create_event', validEvent, 'b')), usage: usage(0, 6) },
      'unreached',
    ])
    const tools = makeTools()
    const agent = Agent.create({ provider }).tool(tools.eventTool).reliability({ priceUsage: tenths }).costBudget({ usd: 0.9 }).build()
    await expect(agent.run('book')).rejects.toMatchObject({ kind: 'budget-exceeded', phase: 'pre-check' })
    expect(provider.calls).toBe(2)
  })

  it('passes a pricing table through to the gate', async () => {
    const provider = scripted([{ content: 'Hi.', usage: usage(1_000_000, 1_000_000) }])
    const agent = Agent.create({ provider, model: 'tiny-1' })
      .reliability({ pricing: { tiny: { input: 1, output: 2 } } })
      .build()
    expect((await agent.runDetailed('hi')).costUsd).toBe(3)
  })

  it('rejects a budget that is not a positive number', () => {
    expect(() =>
      Agent.create({ provider: scripted([]) })
        .costBudget({ usd: 0 })
        .build(),
    ).toThrow(/usd must be a positive number/)
  })
})

describe('Agent costBudget inside one model turn', () => {
  it('halts a schema retry before the provider is called once the run has spent its budget', async () => {
    const provider = scripted([costing(1, 'nope'), costing(1, '{"action": 1}'), '{"action": "refund"}'])
    const agent = Agent.create({ provider })
      .outputSchema(Verdict)
      .reliability({ postDecide: strictOutputRules(3), priceUsage })
      .costBudget({ usd: 0.5, onExceed: 'halt' })
      .build()
    const exceeded: GateEventMap['budget_exceeded'][] = []
    agent.on('budget_exceeded', (e) => exceeded.push(e))
    const error = await agent.run('refund?').catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'budget-exceeded', phase: 'pre-check', costUsd: 1 })
    expect(isReliabilityFailFastError(error) && error.attempts).toHaveLength(1)
    expect(provider.calls).toBe(1)
    expect(exceeded).toEqual([{ runId: expect.any(String), turn: 1, budgetUsd: 0.5, spentUsd: 1, action: 'halt' }])
  })

  it('counts earlier turns of the run against a retry of a later turn', async () => {
    const tools = makeTools()
    const provider = scripted([
      { ...turn(call('create_event', validEvent)), usage: { inputTokens: 512, outputTokens: 0 } },
      costing(0.25, 'nope'),
      costing(0.25, '{"action": 1}'),
      '{"action": "refund"}',
    ])
    const agent = Agent.create({ provider })
      .outputSchema(Verdict)
      .tool(tools.eventTool)
      .reliability({ postDecide: strictOutputRules(5), priceUsage })
      .costBudget({ usd: 0.75 })
      .build()
    // $0.50 for the tool turn + $0.25 for the answer turn's first attempt: its retry is never made.
    await expect(agent.run('book and refund')).rejects.toMatchObject({ kind: 'budget-exceeded', costUsd: 0.75 })
    expect(provider.calls).toBe(2)
  })

  it('warns once within a turn and lets the retries go on', async () => {
    const provider = scripted([costing(1, 'nope'), costing(1, '{"action": 1}'), '{"action": "refund"}'])
    const agent = Agent.create({ provider })
      .outputSchema(Verdict)
      .reliability({ postDecide: strictOutputRules(3), priceUsage })
      .costBudget({ usd: 0.5, onExceed: 'warn' })
      .build()
    const exceeded: GateEventMap['budget_exceeded'][] = []
    agent.on('budget_exceeded', (e) => exceeded.push(e))
    expect(await agent.runTyped('refund?')).toEqual({ action: 'refund' })
    expect(provider.calls).toBe(3)
    expect(exceeded).toEqual([{ runId: expect.any(String), turn: 1, budgetUsd: 0.5, spentUsd: 1, action: 'warn' }])
  })

  it('starts every run with a fresh budget', async () => {
    const provider = scripted([costing(0.25, 'nope'), '{"action": "refund"}', costing(0.25, 'nope'), '{"action": "reject"}'])
    const agent = Agent.create({ provider })
      .outputSchema(Verdict)
      .reliability({ postDecide: strictOutputRules(3), priceUsage })
      .costBudget({ usd: 0.5 })
      .build()
    expect(await agent.runTyped('one')).toEqual({ action: 'refund' })
    expect(await agent.runTyped('two')).toEqual({ action: 'reject' })
  })

  it('reads each costBudget option once, where it is checked: a getter answering another value later changes nothing', async () => {
    let reads = 0
    const budget = {
      get usd() {
        reads++
        return reads === 1 ? 1 : Number.NaN
      },
    }
    const agent = Agent.create({ provider: scripted(['{"action": "refund"}']), model: 'm' })
      .outputSchema(Verdict)
      .reliability({ priceUsage })
      .costBudget(budget)
      .build()
    expect(await agent.runTyped('one')).toEqual({ action: 'refund' })
    expect(reads).toBe(1)
  })
})
