import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import {
  Agent,
  defaultStuckLoopRule,
  isReliabilityFailFastError,
  ReliabilityFailFastError,
  strictOutputRules,
  tool,
  type GateEventMap,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'

// The strict-output loop driven through the Agent (the gate's own runs are in test/gate/gate-loop.test.ts).

const badAmount = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'

describe('Agent with strictOutputRules', () => {
  it('returns the content of a first-call success after one provider call', async () => {
    const provider = scripted([validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    expect(await agent.run('refund #42')).toBe(validRefundJson)
    expect(provider.calls).toBe(1)
  })

  it('returns the second answer after exactly two calls when the first does not parse', async () => {
    const provider = scripted(['Sure, here it is: {"orderId": ', validRefundJson, validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    expect(await agent.runTyped('refund #42')).toEqual(validRefund)
    expect(provider.calls).toBe(2)
  })

  it('throws ReliabilityFailFastError from runTyped when retries run out', async () => {
    const provider = scripted(['nope', '{"orderId": 1}', badAmount, validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const error = await agent.runTyped('refund #42').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReliabilityFailFastError)
    expect(error).toMatchObject({ code: 'ERR_RELIABILITY_FAIL_FAST', kind: 'schema-retry-exhausted', phase: 'post-decide' })
    expect((error as ReliabilityFailFastError).attempts.map((a) => a.rawOutput)).toEqual(['nope', '{"orderId": 1}', badAmount])
    expect(provider.calls).toBe(3)
  })

  it('gives the attempt log and its last attempt on the result, as the gate result and the thrown error do', async () => {
    const provider = scripted(['nope', badAmount, validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const result = await agent.runDetailed('refund #42')
    expect(result.attempts.map((a) => a.status)).toEqual(['parse_error', 'schema_error', 'success'])
    expect(result.lastAttempt).toBe(result.attempts[2])
    expect(result.lastAttempt).toMatchObject({ attempt: 3, status: 'success', rawOutput: validRefundJson, decision: 'ok' })
  })

  it('never calls the provider when a PreCheck rule fails fast', async () => {
    const provider = scripted([validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ preCheck: [{ when: () => true, then: 'fail-fast', kind: 'kill-switch' }] })
      .build()
    await expect(agent.runTyped('refund #42')).rejects.toMatchObject({ kind: 'kill-switch', phase: 'pre-check', attempts: [] })
    expect(provider.calls).toBe(0)
    expect(agent.history).toEqual([])
  })

  it('emits exactly one validation_failed through agent.on with the documented payload, before the decision of attempt 1', async () => {
    const agent = Agent.create({ provider: scripted([badAmount, validRefundJson]) })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const order: string[] = []
    const payloads: GateEventMap['validation_failed'][] = []
    agent.on('validation_failed', (p) => {
      payloads.push(p)
      order.push(`validation_failed@${p.attempt}`)
    })
    agent.on('decision', (p) => order.push(`decision@${p.attempt}`))
    const result = await agent.runDetailed('refund #42')
    expect(result.value).toEqual(validRefund)
    expect(payloads).toHaveLength(1)
    const payload = payloads[0] as GateEventMap['validation_failed']
    expect(Object.keys(payload).sort()).toEqual([
      'attempt',
      'cumulativeRetries',
      'issues',
      'message',
      'model',
      'path',
      'provider',
      'rawOutput',
      'runId',
      'stage',
      'turn',
    ])
    expect(payload).toEqual({
      runId: result.runId,
      turn: 1,
      provider: 'scripted',
      model: undefined,
      message: expect.stringContaining('\'amount\': expected number, got "USD 50"'),
      stage: 'schema-validate',
      path: 'amount',
      rawOutput: badAmount,
      issues: [expect.objectContaining({ path: 'amount' })],
      attempt: 1,
      cumulativeRetries: 1,
    })
    expect(order).toEqual(['validation_failed@1', 'decision@1', 'decision@2'])
  })

  it('never lets a listener that throws inside validation_failed abort the run', async () => {
    const agent = Agent.create({ provider: scripted(['nope', validRefundJson]) })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    agent.on('validation_failed', () => {
      throw new Error('metrics backend down')
    })
    const reported: string[] = []
    agent.on('listener_error', (e) => reported.push(`${e.event}: ${(e.error as Error).message}`))
    expect(await agent.runTyped('refund #42')).toEqual(validRefund)
    expect(reported).toEqual(['validation_failed: metrics backend down'])
    expect(agent.history).toEqual([
      { role: 'user', content: 'refund #42' },
      { role: 'assistant', content: validRefundJson },
    ])
  })

  it('never lets a listener that throws inside every event abort the run', async () => {
    const agent = Agent.create({ provider: scripted(['nope', validRefundJson]) })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const names = ['attempt_start', 'attempt_end', 'validation_failed', 'decision', 'retry', 'recovered', 'cost_tick'] as const
    for (const name of names) {
      agent.on(name, () => {
        throw new Error(name)
      })
    }
    const reported = new Set<string>()
    agent.on('listener_error', (e) => reported.add(e.event))
    expect(await agent.runTyped('refund #42')).toEqual(validRefund)
    expect([...reported].sort()).toEqual([...names].sort())
  })

  it('emits no validation_failed on a tool-call turn, even with an output schema', async () => {
    const noop = tool({ name: 'noop', description: '', input: Type.Object({}), execute: () => 'done' })
    const provider = scripted([{ content: 'not json at all', toolCalls: [{ id: 'c1', name: 'noop', args: {} }] }, validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .tool(noop)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    let fired = 0
    agent.on('validation_failed', () => fired++)
    expect(await agent.runTyped('refund #42')).toEqual(validRefund)
    expect(fired).toBe(0)
    expect(provider.calls).toBe(2)
  })

  it('fails with kind schema-stuck-loop after 2 provider calls when the model repeats the same bad output', async () => {
    const provider = scripted(Array.from({ length: 6 }, () => badAmount))
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: [defaultStuckLoopRule, ...strictOutputRules(6)] })
      .build()
    const error = await agent.runTyped('refund #42').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('schema-stuck-loop')
    expect(provider.calls).toBe(2)
  })

  it('sends the retry with an ephemeral feedback tail and commits none of it', async () => {
    const provider = scripted([badAmount, validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    await agent.run('refund #42')
    const tail = provider.requests[1]?.messages.slice(1) ?? []
    expect(tail.map((m) => [m.role, m.ephemeral])).toEqual([
      ['assistant', true],
      ['user', true],
    ])
    expect(tail[1]?.content).toContain('- \'amount\': expected number, got "USD 50"')
    expect(agent.history.some((m) => m.ephemeral === true || m.content === badAmount)).toBe(false)
  })
})
