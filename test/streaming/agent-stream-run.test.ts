import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, ProviderError, strictOutputRules, tool, type AgentStreamEvent, type ReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { memoryDurablePort } from '../../src/durable.ts'
import { memorySessionStore } from '../../src/sessions/index.ts'
import { collect } from '../support/collect-stream.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'

const invalid = '{"orderId": "42", "action": "maybe", "amount": 50}'
const lookupCall = (id: string, args: unknown = { orderId: '42' }) => ({ content: 'Let me look.', toolCalls: [{ id, name: 'lookup', args }] })

/** An agent with one tool (`lookup`) over a fresh script; `executed` lists the arguments `execute` ran on. */
function withTools(steps: Parameters<typeof scripted>[0]) {
  const provider = scripted(steps)
  const executed: unknown[] = []
  const lookup = tool({
    name: 'lookup',
    description: 'Looks up an order',
    input: Type.Object({ orderId: Type.String() }, { additionalProperties: false }),
    execute: (args) => {
      executed.push(args)
      return { order: args.orderId, paid: 50 }
    },
  })
  const agent = Agent.create({ provider, model: 'm', name: 'billing', maxIterations: 3 })
    .outputSchema(Refund)
    .tool(lookup)
    .reliability({ postDecide: strictOutputRules(3) })
    .build()
  return { agent, provider, executed }
}

const texts = (events: readonly AgentStreamEvent<unknown>[]): string =>
  events
    .filter((e) => e.type === 'text')
    .map((e) => (e as { text: string }).text)
    .join('')

describe('agent.stream', () => {
  it('runs the tools of a tool turn and commits the tool turn with the answer, as runDetailed does', async () => {
    const steps = [lookupCall('c1'), validRefundJson]
    const ran = withTools(steps)
    const run = await ran.agent.runDetailed('refund #42')
    const streamed = withTools(steps)
    const stream = streamed.agent.stream('refund #42', { mode: 'buffer' })
    const result = await stream.result

    expect(streamed.executed).toEqual([{ orderId: '42' }])
    expect(result.value).toEqual(validRefund)
    expect(result.functionsCalled.map((c) => [c.name, c.status, c.args])).toEqual([['lookup', 'ok', { orderId: '42' }]])
    expect(result.turns).toBe(2)
    expect(streamed.agent.history).toEqual(ran.agent.history)
    expect(streamed.agent.history).toHaveLength(4)
    expect(result.exchange).toEqual(run.exchange)
    expect(streamed.provider.requests[0]?.tools?.map((t) => t.name)).toEqual(['lookup'])
  })

  it('retries invalid tool arguments with feedback before running the tool', async () => {
    const { agent, executed, provider } = withTools([lookupCall('c1', { orderId: 42 }), lookupCall('c1'), validRefundJson])
    const result = await agent.stream('refund #42', { mode: 'passthrough' }).result
    expect(executed).toEqual([{ orderId: '42' }])
    expect(result.functionsCalled).toEqual([expect.objectContaining({ name: 'lookup', outcome: 'success', retryCount: 1 })])
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', ephemeral: true })
  })

  it('delivers only the answer in buffer mode, not the prose of a tool turn', async () => {
    const { agent } = withTools([lookupCall('c1'), validRefundJson])
    const events = await collect(agent.stream('refund #42', { mode: 'buffer' }))
    expect(texts(events)).toBe(validRefundJson)
    expect(events.at(-1)).toMatchObject({ type: 'result', attempt: 2 })
  })

  it('numbers attempts across the run in passthrough mode, each event naming its record in result.attempts', async () => {
    const { agent } = withTools([lookupCall('c1'), validRefundJson])
    const stream = agent.stream('refund #42', { mode: 'passthrough' })
    const events = await collect(stream)
    const result = await stream.result
    const byAttempt = events.filter((e) => e.type === 'text').map((e) => [e.attempt, (e as { text: string }).text])
    expect(
      byAttempt
        .filter(([a]) => a === 1)
        .map(([, t]) => t)
        .join(''),
    ).toBe('Let me look.')
    expect(
      byAttempt
        .filter(([a]) => a === 2)
        .map(([, t]) => t)
        .join(''),
    ).toBe(validRefundJson)
    expect(result.attempts).toHaveLength(2)
  })

  it('stops at maxIterations with the tool calls of the last turn never run', async () => {
    const { agent, executed } = withTools([lookupCall('c1'), lookupCall('c2'), lookupCall('c3'), validRefundJson])
    const error = (await agent.stream('refund #42', { mode: 'buffer' }).result.catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.kind).toBe('max-iterations')
    expect(executed).toHaveLength(2)
    expect(agent.history).toEqual([])
  })

  it('answers with the output fallback and streams its text before the result', async () => {
    const agent = Agent.create({ provider: scripted([invalid]), model: 'm' })
      .outputSchema(Refund)
      .outputFallback({ canned: { orderId: '0', action: 'reject', amount: 0 } })
      .build()
    const stream = agent.stream('refund #42', { mode: 'passthrough' })
    const events = await collect(stream)
    const result = await stream.result
    expect(result.outputFallback).toBe('canned')
    expect(result.value).toEqual({ orderId: '0', action: 'reject', amount: 0 })
    expect(events.at(-2)).toEqual({ type: 'text', text: result.text, attempt: 1 })
    expect(agent.history).toEqual([
      { role: 'user', content: 'refund #42' },
      { role: 'assistant', content: result.text },
    ])
  })

  it("streams the gate fallback's answer in passthrough mode, as the answer it commits", async () => {
    const canned = JSON.stringify({ orderId: '0', action: 'reject', amount: 0 })
    const agent = Agent.create({ provider: scripted([new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })]), model: 'm' })
      .outputSchema(Refund)
      .reliability({
        fallback: () => ({ content: canned, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' }),
        postDecide: [{ when: (s) => s.errorKind === 'http-5xx', then: 'fallback', kind: 'answer-canned' }],
      })
      .build()
    const stream = agent.stream('refund #42', { mode: 'passthrough' })
    const events = await collect(stream)
    const result = await stream.result
    expect(texts(events)).toBe(canned)
    expect(result.text).toBe(canned)
    expect(agent.history.at(-1)).toEqual({ role: 'assistant', content: canned })
  })

  it('ends aborted, with nothing committed and the iterator failing, when aborted while a tool runs', async () => {
    const provider = scripted([lookupCall('c1'), validRefundJson])
    const controller = new AbortController()
    const slow = tool({
      name: 'lookup',
      description: 'Looks up an order, slowly',
      input: Type.Object({ orderId: Type.String() }, { additionalProperties: false }),
      execute: () => {
        controller.abort()
        return new Promise(() => {})
      },
    })
    const agent = Agent.create({ provider, model: 'm' }).outputSchema(Refund).tool(slow).build()
    const stream = agent.stream('refund #42', { mode: 'passthrough', signal: controller.signal })
    await expect(stream.result).rejects.toMatchObject({ kind: 'aborted' })
    await expect(collect(stream)).rejects.toMatchObject({ kind: 'aborted' })
    expect(provider.calls).toBe(1)
    expect(agent.history).toEqual([])
  })

  it('refuses progressive mode for an agent with tools with a TypeError, before any model call', () => {
    const { agent, provider } = withTools([validRefundJson])
    expect(() => agent.stream('refund #42', { mode: 'progressive' })).toThrow(TypeError)
    expect(() => agent.stream('refund #42', { mode: 'progressive' })).toThrow(/mode 'progressive' cannot stream an agent with tools/)
    expect(provider.calls).toBe(0)
  })

  it('refuses an agent whose gate has a durable port with a TypeError when called, before the run starts', () => {
    const provider = scripted([validRefundJson])
    const agent = Agent.create({ provider, model: 'm' })
      .outputSchema(Refund)
      .reliability({ durable: memoryDurablePort({ runId: 'wf-1' }) })
      .build()
    const starts: unknown[] = []
    agent.on('agent_run_start', (e) => starts.push(e))
    expect(() => agent.stream('refund #42')).toThrow(TypeError)
    expect(() => agent.session().stream('refund #42', { mode: 'buffer' })).toThrow(/durable port.*runDetailed/)
    expect(provider.calls).toBe(0)
    expect(starts).toEqual([])
  })

  it('commits a stored conversation as runDetailed does, tool turns included', async () => {
    const steps = [lookupCall('c1'), validRefundJson]
    const ranStore = memorySessionStore()
    const streamedStore = memorySessionStore()
    const runSession = await Agent.create({ provider: scripted(steps), model: 'm', sessions: ranStore })
      .outputSchema(Refund)
      .tool(lookupTool())
      .build()
      .session('c-1')
    const streamSession = await Agent.create({ provider: scripted(steps), model: 'm', sessions: streamedStore })
      .outputSchema(Refund)
      .tool(lookupTool())
      .build()
      .session('c-1')
    const run = await runSession.runDetailed('refund #42')
    const result = await streamSession.stream('refund #42', { mode: 'buffer' }).result
    expect(result.session).toEqual(run.session)
    expect((await ranStore.load('c-1')).messages).toEqual((await streamedStore.load('c-1')).messages)
    expect((await streamedStore.load('c-1')).messages).toHaveLength(4)
  })
})

function lookupTool() {
  return tool({
    name: 'lookup',
    description: 'Looks up an order',
    input: Type.Object({ orderId: Type.String() }, { additionalProperties: false }),
    execute: (args) => ({ order: args.orderId, paid: 50 }),
  })
}
