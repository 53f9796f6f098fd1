import { describe, expect, it } from 'vitest'
import { Agent, createGate, memoryStore, sharedBudget, strictOutputRules, tool, type GateEvent } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, EventInput, invalidEvent, turn, validEvent } from '../agent/tool-fixtures.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const eventTool = () => tool({ name: 'create_event', description: 'Creates a calendar event', input: EventInput, execute: async () => ({ created: true }) })

function collect(source: { readonly events$: { subscribe(fn: (e: GateEvent) => void): { unsubscribe(): void } } }) {
  const events: GateEvent[] = []
  const sub = source.events$.subscribe((e) => events.push(e))
  return { events, stop: () => sub.unsubscribe() }
}

describe('Run events', () => {
  it('brackets a gate run with run_start and run_end', async () => {
    const gate = createGate({
      providers: scripted(['{}', validRefundJson], { name: 'openai' }),
      model: 'gpt-x',
      outputSchema: Refund,
      postDecide: strictOutputRules(3),
    })
    const { events, stop } = collect(gate)
    const result = await gate.run(ask('x'))
    stop()
    expect(events[0]).toEqual({ type: 'run_start', runId: result.runId, provider: 'openai', model: 'gpt-x' })
    expect(events.at(-1)).toMatchObject({
      type: 'run_end',
      runId: result.runId,
      outcome: 'ok',
      kind: 'ok',
      attempts: 2,
      provider: 'openai',
      fromFallback: false,
    })
  })

  it('ends a failed gate run with run_end carrying the fail-fast kind', async () => {
    const gate = createGate({ providers: scripted(['nope']), outputSchema: Refund })
    const { events, stop } = collect(gate)
    await gate.run(ask('x')).catch(() => undefined)
    stop()
    expect(events.at(-1)).toMatchObject({ type: 'run_end', outcome: 'fail-fast', kind: 'schema-fail', attempts: 1 })
  })

  it('puts no turn and no metadata on the events of a plain gate run without metadata', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund })
    const { events, stop } = collect(gate)
    await gate.run(ask('x'))
    stop()
    expect(events.filter((e) => 'turn' in e || 'metadata' in e)).toEqual([])
  })

  it('puts the caller metadata on every event of the run', async () => {
    const gate = createGate({ providers: scripted(['{}', validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const { events, stop } = collect(gate)
    const metadata = { tenant: 'acme', requestId: 'req-7' }
    await gate.run(ask('x'), { metadata })
    stop()
    expect(events.length).toBeGreaterThan(5)
    // Every event carries one frozen copy of the caller's metadata: a listener can edit neither it nor the caller's object.
    expect(events.every((e) => e.metadata === events[0]?.metadata)).toBe(true)
    expect(events[0]?.metadata).toEqual(metadata)
    expect(Object.isFrozen(events[0]?.metadata)).toBe(true)
  })

  it("puts the caller metadata on the events of the chain's policies and of an unpriced attempt too", async () => {
    const gate = createGate({
      providers: scripted([{ content: '{}', usage: { inputTokens: 10, outputTokens: 10 } }, validRefundJson]),
      model: 'unknown-model',
      pricing: { 'other-model': { input: 1, output: 1 } },
      budget: sharedBudget({ store: memoryStore(), key: 'b', usd: 1, reserveUsd: 0.001 }),
      breaker: { failureThreshold: 1, cooldownMs: 60_000 },
      outputSchema: Refund,
      postDecide: strictOutputRules(3),
    })
    const { events, stop } = collect(gate)
    const metadata = { tenant: 'acme' }
    await gate.run(ask('x'), { metadata })
    stop()
    const unknown = events.filter((e) => e.type === 'cost_unknown')
    // The meter prices each answer once and reports it once; the budget charges the meter's reading.
    expect(unknown.map((e) => (e.type === 'cost_unknown' ? e.source : undefined)).sort()).toEqual(['meter', 'meter'])
    // Every event carries one frozen copy of the caller's metadata: a listener can edit neither it nor the caller's object.
    expect(events.every((e) => e.metadata === events[0]?.metadata)).toBe(true)
    expect(events[0]?.metadata).toEqual(metadata)
    expect(Object.isFrozen(events[0]?.metadata)).toBe(true)
  })

  it('numbers the turns of an agent run on its events', async () => {
    const agent = Agent.create({ provider: scripted([turn(call('create_event', validEvent)), 'Booked.']), model: 'm' })
      .tool(eventTool())
      .build()
    const { events, stop } = collect(agent)
    await agent.run('book', { metadata: { tenant: 'acme' } })
    stop()
    const starts = events.filter((e) => e.type === 'attempt_start')
    expect(starts.map((e) => e.turn)).toEqual([1, 2])
    expect(events.find((e) => e.type === 'tool_start')?.turn).toBe(1)
    expect(events.every((e) => e.metadata?.tenant === 'acme')).toBe(true)
  })

  it('brackets an agent run with agent_run_start and agent_run_end around its gate runs', async () => {
    const agent = Agent.create({ provider: scripted([turn(call('create_event', validEvent)), 'Booked.']), model: 'm', name: 'mailbot' })
      .tool(eventTool())
      .build()
    const { events, stop } = collect(agent)
    const result = await agent.runDetailed('book')
    stop()
    const runLevel = events
      .filter((e) => ['agent_run_start', 'agent_run_end', 'run_start', 'run_end', 'tool_start', 'tool_end'].includes(e.type))
      .map((e) => e.type)
    expect(runLevel).toEqual(['agent_run_start', 'run_start', 'run_end', 'tool_start', 'tool_end', 'run_start', 'run_end', 'agent_run_end'])
    expect(events.at(-1)).toMatchObject({ type: 'agent_run_end', runId: result.runId, agent: 'mailbot', outcome: 'ok', turns: 2, attempts: 2 })
    expect(new Set(events.map((e) => e.runId))).toEqual(new Set([result.runId]))
  })

  it('ends a failed agent run with agent_run_end carrying the kind', async () => {
    const agent = Agent.create({ provider: scripted(['nope']), model: 'm' })
      .outputSchema(Refund)
      .build()
    const { events, stop } = collect(agent)
    await agent.run('x').catch(() => undefined)
    stop()
    expect(events.at(-1)).toMatchObject({ type: 'agent_run_end', outcome: 'fail-fast', kind: 'schema-fail', attempts: 1 })
  })

  it('reports a tool call with argument retries as one tool_start and one tool_end', async () => {
    const agent = Agent.create({
      provider: scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Booked.']),
      model: 'm',
    })
      .tool(eventTool())
      .build()
    const { events, stop } = collect(agent)
    await agent.run('book')
    stop()
    expect(events.filter((e) => e.type === 'tool_start')).toHaveLength(1)
    expect(events.find((e) => e.type === 'tool_end')).toMatchObject({
      tool: 'create_event',
      callId: 'call_create_event',
      status: 'ok',
      outcome: 'success',
      retryCount: 1,
      args: validEvent,
      result: { created: true },
    })
  })

  it('tells on attempt_end the model, the finish reason and the raw response', async () => {
    const gate = createGate({ providers: scripted([{ content: validRefundJson, stopReason: 'end' }]), model: 'gpt-x', outputSchema: Refund })
    const { events, stop } = collect(gate)
    await gate.run(ask('x'))
    stop()
    expect(events.find((e) => e.type === 'attempt_end')).toMatchObject({ model: 'gpt-x', finishReason: 'end', response: { content: validRefundJson } })
  })

  it('attributes a tool call argument failure to the model that made the call', async () => {
    const agent = Agent.create({
      provider: scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Booked.'], { name: 'openai' }),
      model: 'gpt-x',
    })
      .tool(eventTool())
      .build()
    const failures: unknown[] = []
    agent.on('validation_failed', (e) => failures.push(e))
    await agent.run('book')
    expect(failures).toEqual([expect.objectContaining({ stage: 'tool-args', provider: 'openai', model: 'gpt-x', turn: 1 })])
  })

  it('hands the ephemeral tail of the next attempt on retry', async () => {
    const gate = createGate({ providers: scripted(['{}', validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const { events, stop } = collect(gate)
    await gate.run(ask('x'))
    stop()
    const retry = events.find((e) => e.type === 'retry')
    expect(retry?.type === 'retry' && retry.tail.map((m) => [m.role, m.ephemeral])).toEqual([
      ['assistant', true],
      ['user', true],
    ])
    const second = events.filter((e) => e.type === 'attempt_start')[1]
    expect(second?.type === 'attempt_start' && second.request.messages.slice(-2)).toEqual(retry?.type === 'retry' && retry.tail)
  })

  it('gives every run its own id, however many run at once on however many gates and agents', async () => {
    const providers = scripted(Array.from({ length: 400 }, () => validRefundJson))
    const gates = [createGate({ providers, outputSchema: Refund }), createGate({ providers, outputSchema: Refund })]
    const agent = Agent.create({ provider: providers, model: 'm' }).outputSchema(Refund).build()
    const ids = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        i % 3 === 2 ? agent.runDetailed('x').then((r) => r.runId) : (gates[i % 3] as (typeof gates)[number]).run(ask('x')).then((r) => r.runId),
      ),
    )
    expect(new Set(ids).size).toBe(300)
    expect(ids.every((id) => /^run_[0-9a-z]+_[0-9a-z]+$/.test(id))).toBe(true)
  })
})
