import { describe, expect, it } from 'vitest'
import { Agent, strictOutputRules, type AgentStreamEvent, type GateEvent, type GateEventMap, type ReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'

const invalid = '{"orderId": "42", "action": "maybe", "amount": 50}'

describe('agent.stream', () => {
  it('streams progressively, retries with feedback and commits only the accepted exchange', async () => {
    const provider = scripted([invalid, validRefundJson])
    const agent = Agent.create({ provider, model: 'm', name: 'billing' })
      .system('Output JSON.')
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const aborted: string[] = []
    agent.on('stream_aborted', (e) => aborted.push(e.path))
    const stream = agent.stream({ message: 'refund #42' }, { mode: 'progressive' })
    const events: AgentStreamEvent<unknown>[] = []
    for await (const e of stream) events.push(e)
    const result = await stream.result

    expect(aborted).toEqual(['action'])
    expect(result.value).toEqual(validRefund)
    expect(events.at(-1)?.type).toBe('result')
    expect(provider.requests[1]?.messages.at(-1)?.ephemeral).toBe(true)
    expect(agent.history).toEqual([
      { role: 'user', content: 'refund #42' },
      { role: 'assistant', content: validRefundJson },
    ])
  })

  it('leaves the history untouched when the stream fails', async () => {
    const agent = Agent.create({ provider: scripted([invalid]), model: 'm' })
      .outputSchema(Refund)
      .build()
    const stream = agent.stream({ message: 'refund #42' }, { mode: 'buffer' })
    await expect(stream.result).rejects.toMatchObject({ name: 'ReliabilityFailFastError' })
    expect(agent.history).toEqual([])
  })

  it('delivers the same events through the observable of a session stream', async () => {
    const agent = Agent.create({ provider: scripted([validRefundJson]), model: 'm' })
      .outputSchema(Refund)
      .build()
    const session = agent.session()
    const stream = session.stream({ message: 'x' })
    const types: string[] = []
    await new Promise<void>((resolve, reject) => stream.observable.subscribe({ next: (e) => types.push(e.type), error: reject, complete: resolve }))
    await stream.result
    expect(types.at(-1)).toBe('result')
    expect(types).toContain('text')
    expect(session.history).toHaveLength(2)
  })

  it('brackets a streamed run with agent_run_start and agent_run_end, and tags every event with its run id and turn', async () => {
    const agent = Agent.create({ provider: scripted([invalid, validRefundJson]), model: 'm', name: 'billing' })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const seen: GateEvent[] = []
    const sub = agent.events$.subscribe((e) => seen.push(e))
    const stream = agent.stream({ message: 'refund #42' }, { mode: 'buffer', metadata: { tenant: 'acme' } })
    const result = await stream.result
    sub.unsubscribe()
    expect(seen[0]).toEqual({ type: 'agent_run_start', runId: result.runId, turn: 0, metadata: { tenant: 'acme' }, agent: 'billing' })
    expect(seen.at(-1)).toMatchObject({ type: 'agent_run_end', runId: result.runId, turn: 1, outcome: 'ok', kind: 'ok', turns: 1, attempts: 2 })
    expect(new Set(seen.map((e) => e.runId))).toEqual(new Set([result.runId]))
    expect(seen.filter((e) => e.type === 'attempt_end').map((e) => (e as { turn?: number }).turn)).toEqual([1, 1])
  })

  it('ends a failed streamed run with agent_run_end carrying the fail-fast kind and what it spent', async () => {
    const agent = Agent.create({ provider: scripted([invalid]), model: 'm' })
      .outputSchema(Refund)
      .build()
    const ends: GateEventMap['agent_run_end'][] = []
    agent.on('agent_run_end', (e) => ends.push(e))
    const stream = agent.stream({ message: 'x' }, { mode: 'buffer', runId: 'run-7' })
    const error = (await stream.result.catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(ends).toEqual([expect.objectContaining({ runId: 'run-7', outcome: 'fail-fast', kind: error.kind, turns: 1, attempts: error.attempts.length })])
    expect(error.runId).toBe('run-7')
  })
})
