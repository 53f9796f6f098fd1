import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, contentGuard, isReliabilityFailFastError, memorySessionStore, piiGuard, secretsGuard, tool } from '../../src/index.ts'
import { watchedApprovals } from '../support/watched-approvals.ts'
import { scripted } from '../../src/providers/index.ts'

const EMAIL = 'ana.canary@example.com'
const KEY = 'sk-proj-CANARYabcdefghijklmnopqrstuv'

function setup(args: unknown, guards: Parameters<typeof Agent.create>[0]['contentGuards'] & object) {
  const ran: unknown[] = []
  const provider = scripted([{ content: '', toolCalls: [{ id: 'c1', name: 'notify', args }] }, 'Done.'])
  const notify = tool({
    name: 'notify',
    description: 'Sends a note',
    input: Type.Object({ to: Type.String(), amount: Type.Optional(Type.Number()), ref: Type.Optional(Type.String({ pattern: '^[0-9 ]+$' })) }),
    execute: (a) => {
      ran.push(a)
      return 'sent'
    },
  })
  const sessions = memorySessionStore()
  const agent = Agent.create({ provider, model: 'm', sessions, contentGuards: guards }).tools([notify]).build()
  return { agent, provider, ran, sessions }
}

describe('Agent content guards on tool-call arguments', () => {
  it('run the tool on redacted arguments that still pass its schema, and persist only those', async () => {
    const { agent, ran, sessions } = setup({ to: `mail ${EMAIL}` }, [piiGuard({ surfaces: ['tool-args'] })])
    const result = await (await agent.session('s')).runDetailed('notify')
    expect(ran).toEqual([{ to: 'mail [REDACTED:email]' }])
    expect(result.functionsCalled[0]).toMatchObject({ status: 'ok', args: { to: 'mail [REDACTED:email]' } })
    expect(JSON.stringify(await sessions.load('s'))).not.toContain(EMAIL)
    // The call's attempts record the arguments as the guard left them: the result holds no canary either.
    expect(result.functionsCalled[0]?.argsTried).toEqual([{ to: 'mail [REDACTED:email]' }])
    expect(JSON.stringify(result.functionsCalled)).not.toContain(EMAIL)
  })

  it("store no redacted or blocked argument with a run paused for approval: the turn's calls as the guards left them", async () => {
    const CARD = '4111 1111 1111 1111'
    const calls = [
      { id: 'c0', name: 'lookup', args: { q: `card ${CARD}` } },
      { id: 'c1', name: 'lookup', args: { q: KEY } },
      { id: 'c2', name: 'refund', args: { order: 1, note: `card ${CARD}` } },
    ]
    const provider = scripted([
      { content: '', toolCalls: [{ id: 'l1', name: 'lookup', args: { q: `mail ${EMAIL}` } }] },
      { content: '', toolCalls: calls },
      'Done.',
    ])
    const lookup = tool({ name: 'lookup', description: 'Looks up', input: Type.Object({ q: Type.String() }), execute: () => 'found' })
    const refund = tool({
      name: 'refund',
      description: 'Refunds',
      input: Type.Object({ order: Type.Integer(), note: Type.String() }),
      needsApproval: true,
      execute: () => 'refunded',
    })
    const { sessions, bodies } = watchedApprovals()
    const guards = [piiGuard({ surfaces: ['tool-args'] }), secretsGuard({ action: 'block', surfaces: ['tool-args'] })]
    const agent = Agent.create({ provider, model: 'm', sessions, contentGuards: guards }).tools([lookup, refund]).build()
    const error = await (await agent.session('s')).run('refund').catch((e: unknown) => e)
    expect(error).toMatchObject({ approval: { args: { order: 1, note: 'card [REDACTED:card]' } } })
    expect(bodies).toHaveLength(1)
    for (const canary of [EMAIL, KEY, CARD]) expect(bodies[0]).not.toContain(canary)
  })

  it('turn a redaction that breaks the schema into a re-ask, never an invalid call', async () => {
    // The card sits in a field whose pattern allows digits only: redacted, it no longer passes.
    const { agent, ran, provider } = setup({ to: 'x', ref: '4111 1111 1111 1111' }, [piiGuard({ surfaces: ['tool-args'] })])
    const result = await agent.runDetailed('notify')
    expect(ran).toEqual([])
    expect(result.functionsCalled[0]?.status).toBe('guard-rejected')
    expect(provider.requests[1]?.messages.at(-1)?.content).toMatch(/^BLOCKED: .*no longer pass the tool's input schema/)
    expect(JSON.stringify(provider.requests[1])).not.toContain('4111 1111 1111 1111')
  })

  it('never run a tool whose arguments a guard blocks; escalation stops the run', async () => {
    const blocked = setup({ to: KEY }, [secretsGuard({ action: 'block', surfaces: ['tool-args'] })])
    const r = await blocked.agent.runDetailed('notify')
    expect(blocked.ran).toEqual([])
    expect(r.functionsCalled[0]).toMatchObject({ status: 'guard-rejected', args: {} })
    const human = contentGuard('human', () => ({ action: 'escalate', reason: 'money moves' }), { surfaces: ['tool-args'] })
    const escalated = setup({ to: 'x', amount: 5 }, [human])
    const ends: string[] = []
    escalated.agent.on('tool_end', (e) => ends.push(e.status))
    const error = await escalated.agent.run('notify').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('guard-escalated')
    expect(escalated.ran).toEqual([])
    // The call that started ends too, before the run fails: tool_start and tool_end bracket it.
    expect(ends).toEqual(['guard-rejected'])
  })
})
