import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, ProviderError, type GateEventMap } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, invalidEvent, makeTools, turn, validEvent } from './tool-fixtures.ts'

const Verdict = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]) }, { additionalProperties: false })
const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })

describe('Agent provider failover', () => {
  it('switches provider on retry-other, asking each one for its own model', async () => {
    const primary = scripted([down()], { name: 'primary' })
    const backup = scripted(['{"action": "refund"}'], { name: 'backup' })
    const third = scripted([], { name: 'third' })
    const agent = Agent.create({ provider: primary, model: 'agent-default' })
      .outputSchema(Verdict)
      .reliability({
        providers: [{ provider: primary, model: 'primary-large' }, { provider: backup, model: 'backup-small' }, { provider: third }],
        postDecide: [{ when: (s) => s.errorKind === 'http-5xx' && s.canSwitchProvider, then: 'retry-other', kind: 'failover' }],
      })
      .build()
    const retries: GateEventMap['retry'][] = []
    agent.on('retry', (e) => retries.push(e))
    const result = await agent.runDetailed('refund?')
    expect(result.value).toEqual({ action: 'refund' })
    expect([primary.requests[0]?.model, backup.requests[0]?.model]).toEqual(['primary-large', 'backup-small'])
    expect(retries).toEqual([expect.objectContaining({ decision: 'retry-other', fromProvider: 'primary', toProvider: 'backup' })])
    expect(result.provider).toBe('backup')
    expect(third.calls).toBe(0)
  })

  it('asks the model that made a tool call to fix its arguments, not the first provider, after a failover', async () => {
    // The primary is down for the first turn; the backup made the call, so it alone is asked again.
    const primary = scripted([down(), 'from the primary'], { name: 'primary' })
    const backup = scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'booked'], { name: 'backup' })
    const { eventTool, createEvent } = makeTools()
    const agent = Agent.create({ provider: primary })
      .tool(eventTool)
      .reliability({
        providers: [
          { provider: primary, model: 'primary-large' },
          { provider: backup, model: 'backup-small' },
        ],
        postDecide: [{ when: (s) => s.errorKind === 'http-5xx' && s.canSwitchProvider, then: 'retry-other', kind: 'failover' }],
      })
      .build()
    const starts: GateEventMap['run_start'][] = []
    agent.on('run_start', (e) => starts.push(e))
    const result = await agent.runDetailed('book standup')
    expect(primary.calls).toBe(2) // the down turn, then the next turn (a new turn starts on the first provider)
    expect(backup.requests.map((r) => r.model)).toEqual(['backup-small', 'backup-small'])
    expect(backup.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', ephemeral: true })
    expect(starts.map((e) => [e.provider, e.model])).toEqual([
      ['primary', 'primary-large'],
      ['backup', 'backup-small'],
      ['primary', 'primary-large'],
    ])
    expect(result.functionsCalled).toEqual([expect.objectContaining({ name: 'create_event', args: validEvent, outcome: 'success', retryCount: 1 })])
    expect(createEvent).toHaveBeenCalledTimes(1)
    expect(result.text).toBe('from the primary')
  })

  it('asks an entry without a model for the agent model', async () => {
    const primary = scripted([down()], { name: 'primary' })
    const backup = scripted(['ok'], { name: 'backup' })
    await Agent.create({ provider: primary, model: 'agent-default' })
      .reliability({
        providers: [{ provider: primary, model: 'primary-large' }, backup],
        postDecide: [{ when: (s) => s.errorKind !== 'ok', then: 'retry-other', kind: 'failover' }],
      })
      .build()
      .run('hi')
    expect(backup.requests[0]?.model).toBe('agent-default')
  })

  it('fails with kind no-more-providers past the last provider', async () => {
    const a = scripted([down()], { name: 'a' })
    const b = scripted([down()], { name: 'b' })
    const agent = Agent.create({ provider: a })
      .reliability({ providers: [a, b], postDecide: [{ when: (s) => s.errorKind !== 'ok', then: 'retry-other', kind: 'failover' }] })
      .build()
    const error = await agent.run('hi').catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'no-more-providers' })
    expect([a.calls, b.calls]).toEqual([1, 1])
    expect(agent.history).toEqual([])
  })

  it('validates the answer of the configured fallback like a model answer', async () => {
    const build = (answer: string) =>
      Agent.create({ provider: scripted([down()]) })
        .outputSchema(Verdict)
        .reliability({ postDecide: [{ when: (s) => s.errorKind === 'http-5xx', then: 'fallback', kind: 'use-fallback' }], fallback: () => answer })
        .build()
    expect(await build('{"action": "reject"}').runTyped('refund?')).toEqual({ action: 'reject' })
    await expect(build('{"action": "maybe"}').runTyped('refund?')).rejects.toMatchObject({ kind: 'fallback-invalid' })
  })
})
