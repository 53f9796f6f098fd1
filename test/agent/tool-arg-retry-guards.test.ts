import { describe, expect, it } from 'vitest'
import { guard, type ToolGuard } from '../../src/index.ts'
import { call, invalidEvent, retryAgent as setup, turn, validEvent } from './tool-fixtures.ts'

describe('Agent tool-argument retry guards', () => {
  it('does not retry a guard rejection on the first attempt (1 model call for the call)', async () => {
    const noStandups = guard('noStandups', (args) =>
      (args as { title: string }).title === 'Standup' ? { ok: false, reason: 'standups are cancelled' } : { ok: true },
    )
    const { provider, agent, createEvent } = setup([turn(call('create_event', validEvent)), 'Done.'], { toolGuards: [noStandups] })
    const result = await agent.runDetailed('book standup')
    expect(provider.calls).toBe(2)
    expect(createEvent).not.toHaveBeenCalled()
    expect(result.functionsCalled[0]).toMatchObject({ status: 'guard-rejected', outcome: 'no_retry', retryCount: 0, intercepted: true })
    expect(provider.requests[1]?.messages.at(-1)?.content).toBe(
      "BLOCKED: the call to tool 'create_event' was not executed: guard noStandups rejected its arguments: standups are cancelled",
    )
  })

  it('does not retry a fabricated ID on the first attempt', async () => {
    const { provider, agent, reply } = setup([turn(call('reply_email', { message_id: 'webhostmost-outlook-1', body: 'ok' })), 'Done.'])
    const result = await agent.runDetailed('reply')
    expect(provider.calls).toBe(2)
    expect(reply).not.toHaveBeenCalled()
    expect(result.functionsCalled[0]).toMatchObject({ status: 'guard-rejected', outcome: 'no_retry' })
    expect(result.functionsCalled[0]?.error).toContain('\'message_id\' = "webhostmost-outlook-1" looks fabricated')
  })

  it('blocks a fabricated ID on a retry as fabricated_id_on_retry', async () => {
    const { provider, agent, reply, lines } = setup([
      turn(call('reply_email', { body: 'ok' })),
      turn(call('reply_email', { message_id: 'ivalik-gmail-4', body: 'ok' })),
      'Done.',
    ])
    const result = await agent.runDetailed('reply')
    expect(provider.calls).toBe(3)
    expect(reply).not.toHaveBeenCalled()
    expect(result.functionsCalled[0]).toMatchObject({ status: 'guard-rejected', outcome: 'fabricated_id_on_retry', retryCount: 1, intercepted: true })
    expect(lines).toContainEqual({ level: 'warn', line: 'validation_retry_outcome tool=reply_email ext=mailbot outcome=fabricated_id_on_retry retry_count=1' })
  })

  it('runs user guards on retry inputs too, not only the ID-shape guard', async () => {
    const seen: number[] = []
    const noStandups: ToolGuard = guard('noStandups', (args, ctx) => {
      seen.push(ctx.retry)
      return (args as { title: string }).title === 'Standup' ? { ok: false, reason: 'no standups' } : { ok: true }
    })
    const { agent, createEvent } = setup([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Done.'], {
      toolGuards: [noStandups],
    })
    const result = await agent.runDetailed('book')
    expect(seen).toEqual([1]) // the first attempt failed the schema; the retry's valid input met the guard
    expect(createEvent).not.toHaveBeenCalled()
    expect(result.functionsCalled[0]).toMatchObject({ outcome: 'fabricated_id_on_retry', status: 'guard-rejected' })
  })

  it('treats a throwing guard as a rejection carrying its message', async () => {
    const broken = guard('policyService', () => {
      throw new Error('policy service unreachable')
    })
    const { agent } = setup([turn(call('create_event', validEvent)), 'Done.'], { toolGuards: [broken] })
    const result = await agent.runDetailed('book')
    expect(result.functionsCalled[0]).toMatchObject({ status: 'guard-rejected' })
    expect(result.functionsCalled[0]?.error).toContain('policy service unreachable')
  })
})
