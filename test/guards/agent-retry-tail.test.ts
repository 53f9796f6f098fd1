import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, contentGuard, piiGuard, tool } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const EMAIL = 'ana.canary@example.com'

function setup(guards: Parameters<typeof Agent.create>[0]['contentGuards'] & object) {
  const provider = scripted([
    { content: '', toolCalls: [{ id: 'c1', name: 'notify', args: { to: EMAIL, amount: 'ten' } }] },
    { content: '', toolCalls: [{ id: 'c1', name: 'notify', args: { to: 'ops', amount: 10 } }] },
    'Done.',
  ])
  const notify = tool({ name: 'notify', description: 'd', input: Type.Object({ to: Type.String(), amount: Type.Number() }), execute: () => 'sent' })
  const agent = Agent.create({ provider, model: 'm', contentGuards: guards }).tools([notify]).build()
  return { agent, provider }
}

describe('Agent content guards on the retry tail', () => {
  it('redact what the model wrote before its rejected arguments are echoed back in the retry', async () => {
    const { agent, provider } = setup([piiGuard({ surfaces: ['retry-tail'] })])
    const result = await agent.runDetailed('notify')
    expect(result.functionsCalled[0]).toMatchObject({ status: 'ok', retryCount: 1 })
    const retry = JSON.stringify(provider.requests[1]?.messages)
    expect(retry).not.toContain(EMAIL)
    expect(retry).toContain('[REDACTED:email]')
  })

  it('drop the echo and say why when a guard blocks it', async () => {
    const block = contentGuard('noEcho', ({ text }) => (text.includes('@') ? { action: 'block', reason: 'mail' } : { action: 'allow' }), {
      surfaces: ['retry-tail'],
    })
    const { agent, provider } = setup([block])
    await agent.run('notify')
    const tail = provider.requests[1]?.messages.filter((m) => m.ephemeral === true) ?? []
    expect(tail[0]?.toolCalls?.[0]?.args).toEqual({})
    expect(tail[1]?.content).toMatch(/a guard withheld them/)
    expect(JSON.stringify(provider.requests[1])).not.toContain(EMAIL)
  })
})
