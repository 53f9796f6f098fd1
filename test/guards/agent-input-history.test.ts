import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, contentGuard, type GateEventMap, isReliabilityFailFastError, memorySessionStore, piiGuard, secretsGuard, tool } from '../../src/index.ts'
import { watchedApprovals } from '../support/watched-approvals.ts'
import { scripted } from '../../src/providers/index.ts'

const CARD = '4111 1111 1111 1111'
const EMAIL = 'ana.canary@example.com'
const KEY = 'sk-proj-CANARYabcdefghijklmnopqrstuv'

describe('Agent content guards on input and loaded history', () => {
  it('redact the user input before the model sees it, and commit only the redacted input', async () => {
    const provider = scripted(['Noted.', 'Still noted.'])
    const sessions = memorySessionStore()
    const agent = Agent.create({ provider, model: 'm', sessions, contentGuards: [piiGuard(), secretsGuard()] }).build()
    const verdicts: GateEventMap['guard_verdict'][] = []
    agent.on('guard_verdict', (e) => verdicts.push(e))
    const session = await agent.session('s1')
    await session.run(`card ${CARD}, mail ${EMAIL}, key ${KEY}`)
    const stored = JSON.stringify(await sessions.load('s1'))
    const sent = JSON.stringify(provider.requests)
    for (const canary of [CARD, EMAIL, KEY]) {
      expect(sent).not.toContain(canary)
      expect(stored).not.toContain(canary)
    }
    expect(sent).toContain('[REDACTED:card]')
    expect(verdicts.filter((v) => v.surface === 'input').map((v) => v.action)).toEqual(['redact', 'redact'])
  })

  it('store only the redacted input with a run paused for approval, and resume on it', async () => {
    const provider = scripted([{ content: '', toolCalls: [{ id: 'c1', name: 'refund', args: { order: 1 } }] }, 'Refunded.'])
    const refund = tool({ name: 'refund', description: 'Refunds', input: Type.Object({ order: Type.Integer() }), needsApproval: true, execute: () => 'ok' })
    const { sessions, bodies } = watchedApprovals()
    const agent = Agent.create({ provider, model: 'm', sessions, contentGuards: [piiGuard(), secretsGuard()] })
      .tool(refund)
      .build()
    const session = await agent.session('s-paused')
    const paused = await session.run(`refund order 1, card ${CARD}, mail ${EMAIL}, key ${KEY}`).catch((e: unknown) => e)
    const { approvalId } = (paused as { approval: { approvalId: string } }).approval
    expect(bodies).toHaveLength(1)
    for (const canary of [CARD, EMAIL, KEY]) expect(bodies[0]).not.toContain(canary)
    await session.approve(approvalId, { approved: true })
    expect((await session.resume(approvalId)).text).toBe('Refunded.')
    const stored = JSON.stringify(await sessions.load('s-paused'))
    for (const canary of [CARD, EMAIL, KEY]) expect(stored).not.toContain(canary)
    expect(stored).toContain('[REDACTED:email]')
  })

  it('redact loaded history a guard screens, without rewriting the store', async () => {
    const sessions = memorySessionStore()
    const before = Agent.create({ provider: scripted([`Your mail is ${EMAIL}.`]), model: 'm', sessions }).build()
    await (await before.session('s2')).run('what is my mail?')
    const provider = scripted(['ok'])
    const after = Agent.create({ provider, model: 'm', sessions, contentGuards: [piiGuard({ surfaces: ['history'] })] }).build()
    await (await after.session('s2')).run('and again?')
    expect(JSON.stringify(provider.requests[0]?.messages)).not.toContain(EMAIL)
    expect(JSON.stringify(provider.requests[0]?.messages)).toContain('[REDACTED:email]')
  })

  it('redact the tool-call arguments of loaded history too, before the model sees them', async () => {
    const sessions = memorySessionStore()
    const notify = tool({ name: 'notify', description: 'Notes', input: Type.Object({ to: Type.String() }), execute: () => 'sent' })
    const earlier = scripted([{ content: '', toolCalls: [{ id: 'c1', name: 'notify', args: { to: EMAIL } }] }, 'Sent.'])
    await (await Agent.create({ provider: earlier, model: 'm', sessions }).tools([notify]).build().session('s4')).run('notify me')
    expect(JSON.stringify(await sessions.load('s4'))).toContain(EMAIL)
    const provider = scripted(['ok'])
    const after = Agent.create({ provider, model: 'm', sessions, contentGuards: [piiGuard({ surfaces: ['history'] })] })
      .tools([notify])
      .build()
    await (await after.session('s4')).run('and again?')
    const sent = JSON.stringify(provider.requests[0]?.messages)
    expect(sent).not.toContain(EMAIL)
    expect(provider.requests[0]?.messages.find((m) => m.toolCalls !== undefined)?.toolCalls?.[0]?.args).toEqual({ to: '[REDACTED:email]' })
  })

  it('stop with guard-blocked before any model call or commit when a guard blocks the input', async () => {
    const provider = scripted(['never'])
    const sessions = memorySessionStore()
    const agent = Agent.create({ provider, model: 'm', sessions, contentGuards: [secretsGuard({ action: 'block' })] }).build()
    const error = await (await agent.session('s3')).run(`use ${KEY}`).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('guard-blocked')
    expect(provider.calls).toBe(0)
    expect(JSON.stringify(await sessions.load('s3'))).not.toContain(KEY)
  })

  it('stop with guard-escalated when a guard escalates the input, also without a session', async () => {
    const provider = scripted(['never'])
    const human = contentGuard('human', () => ({ action: 'escalate', reason: 'legal question' }), { surfaces: ['input'] })
    const agent = Agent.create({ provider, model: 'm', contentGuards: [human] }).build()
    const error = await agent.run('can I sue?').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('guard-escalated')
    expect(provider.calls).toBe(0)
  })
})
