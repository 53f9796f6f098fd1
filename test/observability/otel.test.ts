import { describe, expect, it } from 'vitest'
import { Agent, createGate, driftMonitor, strictOutputRules, tool } from '../../src/index.ts'
import { instrument } from '../../src/otel/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, EventInput, invalidEvent, turn, validEvent } from '../agent/tool-fixtures.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { childrenOf, otelHarness, parentOf } from './otel-support.ts'

function billingAgent(steps: Parameters<typeof scripted>[0]) {
  return Agent.create({ provider: scripted(steps, { name: 'openai' }), model: 'gpt-test', name: 'billing' })
    .outputSchema(Refund)
    .reliability({ postDecide: strictOutputRules(3) })
    .build()
}

/** One run of the billing agent on `steps` under each setting of `captureContent`: the spans of each, off and on. */
async function capturedBothWays(steps: Parameters<typeof scripted>[0]) {
  const off = otelHarness()
  const on = otelHarness()
  for (const [h, captureContent] of [
    [off, false],
    [on, true],
  ] as const) {
    const agent = billingAgent(steps)
    const stop = instrument(agent, { ...h.providers, captureContent })
    await agent.run('refund order #42')
    stop()
  }
  return { off, on }
}

describe('instrument', () => {
  it('gives an agent run one invoke_agent span with one chat span per attempt', async () => {
    const h = otelHarness()
    const agent = billingAgent(['{"orderId": 42}', validRefundJson])
    const stop = instrument(agent, h.providers)
    const result = await agent.runDetailed('refund order #42')
    stop()
    const spans = h.spans()
    const root = spans.find((s) => s.name === 'invoke_agent billing')
    expect(root?.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'billing', 'reliability_gate.run_id': result.runId })
    expect(parentOf(root!)).toBeUndefined()
    // The root counts the run's turns (`reliability_gate.turn` names the turn of a chat span) and attempts.
    expect(root?.attributes).toMatchObject({ 'reliability_gate.turns': result.turns, 'reliability_gate.attempts': 2 })
    expect(result.turns).toBe(1)
    const chats = childrenOf(spans, root!)
    expect(chats.map((s) => s.name)).toEqual(['chat gpt-test', 'chat gpt-test'])
  })

  it('puts the GenAI attributes, the decision and the deciding rule on each chat span', async () => {
    const h = otelHarness()
    const agent = billingAgent([
      { content: '{"orderId": 42}', usage: { inputTokens: 11, outputTokens: 3 } },
      { content: validRefundJson, usage: { inputTokens: 20, outputTokens: 9 } },
    ])
    const stop = instrument(agent, h.providers)
    await agent.run('refund order #42')
    stop()
    const [failed, accepted] = h.spans().filter((s) => s.name.startsWith('chat'))
    expect(failed?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
      'error.type': 'schema-fail',
      'reliability_gate.decision': 'retry',
      'reliability_gate.rule.kind': 'schema-retry',
      'reliability_gate.turn': 1,
      'reliability_gate.attempt': 1,
    })
    expect(accepted?.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 20, 'reliability_gate.decision': 'ok', 'reliability_gate.attempt': 2 })
    expect(accepted?.attributes['error.type']).toBeUndefined()
  })

  it('records validation_failed as a span event with its stage and path', async () => {
    const h = otelHarness()
    const agent = billingAgent(['{"orderId": 42, "action": "refund", "amount": 5}', validRefundJson])
    const stop = instrument(agent, h.providers)
    await agent.run('refund order #42')
    stop()
    const failed = h.spans().find((s) => s.name.startsWith('chat') && s.attributes['error.type'] !== undefined)
    const event = failed?.events.find((e) => e.name === 'validation_failed')
    expect(event?.attributes).toMatchObject({ 'reliability_gate.validation.stage': 'schema-validate', 'reliability_gate.validation.path': 'orderId' })
  })

  it('keeps raw outputs and prompts off spans unless captureContent is set', async () => {
    const { off, on } = await capturedBothWays(['{"orderId": 42}', validRefundJson])
    const hidden = off.spans().filter((s) => s.name.startsWith('chat'))
    expect(hidden.some((s) => 'gen_ai.input.messages' in s.attributes || 'gen_ai.output.messages' in s.attributes)).toBe(false)
    expect(hidden.flatMap((s) => s.events).some((e) => e.attributes?.['reliability_gate.validation.raw_output'] !== undefined)).toBe(false)
    const [first, retry] = on.spans().filter((s) => s.name.startsWith('chat'))
    expect(first?.attributes['gen_ai.output.messages']).toContain('orderId')
    const input = JSON.parse(String(retry?.attributes['gen_ai.input.messages'])) as { role: string; ephemeral?: boolean }[]
    expect(input.filter((m) => m.ephemeral === true).map((m) => m.role)).toEqual(['assistant', 'user'])
  })

  it('keeps the values a model wrote off spans unless captureContent is set, the validation message that quotes them included', async () => {
    const secret = 'SSN 123-45-6789'
    const { off, on } = await capturedBothWays([JSON.stringify({ orderId: 42, action: secret, amount: 5 }), validRefundJson])
    const everything = (h: ReturnType<typeof otelHarness>) => JSON.stringify(h.spans().map((s) => [s.name, s.attributes, s.events]))
    expect(everything(off)).not.toContain('123-45-6789')
    const event = (h: ReturnType<typeof otelHarness>) =>
      h
        .spans()
        .flatMap((s) => s.events)
        .find((e) => e.name === 'validation_failed')
    expect(event(off)?.attributes).toMatchObject({ 'reliability_gate.validation.stage': 'schema-validate' })
    expect(String(event(on)?.attributes?.['reliability_gate.validation.message'])).toContain(secret)
  })

  it('gives each logical tool call an execute_tool span, with its argument retries as chat spans under it', async () => {
    const h = otelHarness()
    const eventTool = tool({ name: 'create_event', description: 'Creates a calendar event', input: EventInput, execute: async () => ({ ok: true }) })
    const agent = Agent.create({
      provider: scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Booked.']),
      model: 'm',
      name: 'mailbot',
    })
      .tool(eventTool)
      .build()
    const stop = instrument(agent, h.providers)
    await agent.run('book the standup')
    stop()
    const spans = h.spans()
    const root = spans.find((s) => s.name === 'invoke_agent mailbot')!
    expect(childrenOf(spans, root).map((s) => s.name)).toEqual(['chat m', 'execute_tool create_event', 'chat m'])
    const toolSpan = spans.find((s) => s.name === 'execute_tool create_event')!
    expect(toolSpan.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'create_event',
      'reliability_gate.tool.outcome': 'success',
      'reliability_gate.tool.retry_count': 1,
    })
    expect(childrenOf(spans, toolSpan).map((s) => s.name)).toEqual(['chat m'])
    expect(toolSpan.events.map((e) => e.name)).toEqual(['validation_failed'])
  })

  it('ends the execute_tool span of a result JSON.stringify cannot write as a done call, without a listener error', async () => {
    const h = otelHarness()
    // A cycle defeats JSON, and an object without a prototype has no String() either.
    const result: Record<string, unknown> = Object.create(null)
    result['self'] = result
    const eventTool = tool({ name: 'create_event', description: 'Creates a calendar event', input: EventInput, execute: async () => result })
    const agent = Agent.create({ provider: scripted([turn(call('create_event', validEvent)), 'Booked.']), model: 'm', name: 'mailbot' })
      .tool(eventTool)
      .build()
    const errors: unknown[] = []
    agent.on('listener_error', (e) => errors.push(e.error))
    const stop = instrument(agent, { ...h.providers, captureContent: true })
    await agent.run('book the standup')
    stop()
    const toolSpan = h.spans().find((s) => s.name === 'execute_tool create_event')!
    expect(errors).toEqual([])
    // The tool ran: its result is written safely for the model, and the call is done.
    expect(toolSpan.attributes['error.type']).toBeUndefined()
    expect(toolSpan.attributes['reliability_gate.tool.status']).toBe('ok')
    // The result reaches the span as a string (never a throw inside the listener).
    expect(typeof toolSpan.attributes['gen_ai.tool.call.result']).toBe('string')
  })

  it('gives a plain gate run an invoke_workflow root span that ends with the run', async () => {
    const h = otelHarness()
    const gate = createGate({ providers: scripted(['nope'], { name: 'openai' }), outputSchema: Refund })
    const stop = instrument(gate, h.providers)
    await gate.run(ask('x')).catch(() => undefined)
    stop()
    const root = h.spans().find((s) => s.name === 'invoke_workflow reliability-gate')
    expect(root?.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_workflow', 'reliability_gate.outcome': 'fail-fast', 'error.type': 'schema-fail' })
    expect(root?.status.code).toBe(2)
  })

  it('gives two interleaved runs two separate trees', async () => {
    const h = otelHarness()
    let release: () => void = () => {}
    const gate = createGate({
      providers: scripted([
        // Run A's first answer waits until run B has started: the two runs' attempts interleave.
        () => new Promise((resolve) => (release = () => resolve('{"bad": true}'))),
        () => (release(), validRefundJson),
        validRefundJson,
      ]),
      outputSchema: Refund,
      postDecide: strictOutputRules(3),
    })
    const stop = instrument(gate, h.providers)
    const [a, b] = await Promise.all([gate.run(ask('a'), { runId: 'run-a' }), gate.run(ask('b'), { runId: 'run-b' })])
    stop()
    expect([a.attempts.length, b.attempts.length]).toEqual([2, 1])
    const spans = h.spans()
    const roots = spans.filter((s) => parentOf(s) === undefined)
    expect(roots.map((s) => s.attributes['reliability_gate.run_id']).sort()).toEqual(['run-a', 'run-b'])
    const [rootA, rootB] = ['run-a', 'run-b'].map((id) => roots.find((s) => s.attributes['reliability_gate.run_id'] === id)!)
    expect(rootA!.spanContext().traceId).not.toBe(rootB!.spanContext().traceId)
    expect(childrenOf(spans, rootA!).map((s) => s.attributes['reliability_gate.attempt'])).toEqual([1, 2])
    expect(childrenOf(spans, rootB!).map((s) => s.attributes['reliability_gate.attempt'])).toEqual([1])
    for (const chat of spans.filter((s) => s.name.startsWith('chat'))) {
      expect(chat.attributes['reliability_gate.run_id']).toBe(
        roots.find((r) => r.spanContext().traceId === chat.spanContext().traceId)?.attributes['reliability_gate.run_id'],
      )
    }
  })

  it('stops reporting once stopped', async () => {
    const h = otelHarness()
    const agent = billingAgent([validRefundJson, validRefundJson])
    const stop = instrument(agent, h.providers)
    await agent.run('one')
    stop()
    await agent.run('two')
    expect(h.spans().filter((s) => s.name.startsWith('invoke_agent'))).toHaveLength(1)
  })
})

describe('instrument metrics', () => {
  it('records token usage, duration, validation failures, attempts, retries and cost', async () => {
    const h = otelHarness()
    const agent = Agent.create({
      provider: scripted([
        { content: '{"orderId": 1}', usage: { inputTokens: 10, outputTokens: 2 } },
        { content: validRefundJson, usage: { inputTokens: 30, outputTokens: 8 } },
      ]),
      model: 'gpt-test',
      name: 'billing',
    })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3), pricing: { 'gpt-test': { input: 1_000_000, output: 1_000_000 } } })
      .build()
    const stop = instrument(agent, h.providers)
    await agent.run('refund')
    stop()
    const tokens = await h.points('gen_ai.client.token.usage')
    const input = tokens.find((p) => p.attributes['gen_ai.token.type'] === 'input')?.value as { sum: number; count: number }
    expect([input.sum, input.count]).toEqual([40, 2])
    const duration = await h.points('gen_ai.client.operation.duration')
    expect(duration.reduce((n, p) => n + (p.value as { count: number }).count, 0)).toBe(2)
    const failures = await h.points('reliability_gate.validation_failures')
    expect(failures.map((p) => [p.attributes['reliability_gate.validation.stage'], p.attributes['gen_ai.request.model'], p.value])).toEqual([
      ['schema-validate', 'gpt-test', 1],
    ])
    const attempts = await h.points('reliability_gate.attempts')
    expect((attempts[0]?.value as { sum: number } | undefined)?.sum).toBe(2)
    expect((await h.points('reliability_gate.retries'))[0]?.value).toBe(1)
    expect((await h.points('reliability_gate.cost'))[0]?.value).toBe(50)
  })

  it('counts fail-fast runs by kind', async () => {
    const h = otelHarness()
    const gate = createGate({ providers: scripted(['nope']), outputSchema: Refund })
    const stop = instrument(gate, h.providers)
    await gate.run(ask('x')).catch(() => undefined)
    stop()
    const points = await h.points('reliability_gate.fail_fast')
    expect(points.map((p) => [p.attributes['reliability_gate.fail_fast.kind'], p.value])).toEqual([['schema-fail', 1]])
  })

  it('counts drift threshold crossings by signal, state and model', async () => {
    const h = otelHarness()
    const gate = createGate({ providers: scripted(['{}', validRefundJson]), model: 'm1', outputSchema: Refund, postDecide: strictOutputRules(3) })
    const stop = instrument(gate, h.providers)
    const monitor = driftMonitor(gate, { window: 1, threshold: 0.4 })
    await gate.run(ask('x'))
    monitor.stop()
    stop()
    const points = await h.points('reliability_gate.drift')
    expect(
      points.map((p) => [
        p.attributes['reliability_gate.drift.signal'],
        p.attributes['reliability_gate.drift.state'],
        p.attributes['gen_ai.request.model'],
        p.value,
      ]),
    ).toEqual([['validation_failure_rate', 'above', 'm1', 1]])
  })
})
