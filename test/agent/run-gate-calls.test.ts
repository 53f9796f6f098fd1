import { describe, expect, it } from 'vitest'
import { Agent, type GateEventMap } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'

describe('AgentRun gate calls', () => {
  it('gives every gate call the run id, metadata and turn, and the abort signal', async () => {
    const provider = scripted([validRefundJson])
    const agent = Agent.create({ provider, name: 'billing' }).outputSchema(Refund).build()
    const starts: GateEventMap['run_start'][] = []
    agent.on('run_start', (e) => starts.push(e))
    const controller = new AbortController()
    await agent.runTyped('refund', { runId: 'run_given', metadata: { tenant: 'acme' }, signal: controller.signal })
    expect(starts).toEqual([expect.objectContaining({ runId: 'run_given', metadata: { tenant: 'acme' }, turn: 1 })])
    expect(provider.requests[0]?.signal).toBe(controller.signal)
  })

  it('gives a gate call without metadata or signal neither', async () => {
    const provider = scripted([validRefundJson])
    const agent = Agent.create({ provider }).outputSchema(Refund).build()
    const starts: GateEventMap['run_start'][] = []
    agent.on('run_start', (e) => starts.push(e))
    await agent.runTyped('refund')
    expect(starts[0]).not.toHaveProperty('metadata')
    expect(provider.requests[0]?.signal).toBeUndefined()
  })
})

describe('Session history', () => {
  it('is the first run’s exchange, frozen, and grows by each later run without changing what was read', async () => {
    const agent = Agent.create({ provider: scripted(['first', 'second']) }).build()
    const session = agent.session()
    const first = await session.runDetailed('one')
    const read = session.history
    expect(read).toEqual(first.exchange)
    expect(Object.isFrozen(read)).toBe(true)
    expect(read.every((m) => Object.isFrozen(m))).toBe(true)
    await session.run('two')
    expect(read.map((m) => m.content)).toEqual(['one', 'first'])
    expect(session.history.map((m) => m.content)).toEqual(['one', 'first', 'two', 'second'])
    expect(Object.isFrozen(session.history)).toBe(true)
  })
})
