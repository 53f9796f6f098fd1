import { describe, expect, it } from 'vitest'
import { Agent, strictOutputRules, type GateStreamEvent } from '../../src/index.ts'
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
    const events: GateStreamEvent<unknown>[] = []
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
})
