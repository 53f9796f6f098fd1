import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, invalidEvent, makeTools, retryAgent, turn, validEvent } from './tool-fixtures.ts'

const otherInvalid = { ...invalidEvent, at: 'next week' }

describe('Agent tool-argument retry outcomes (the seed defaults)', () => {
  it('lets the prose reply to a retry stand as the run answer (llm_gave_up at INFO), without re-asking', async () => {
    const { provider, agent, createEvent, outcomes, lines } = retryAgent([turn(call('create_event', invalidEvent)), 'I cannot book that.', 'never read'])
    const session = agent.session()
    const result = await session.runDetailed('book standup')
    expect(result.text).toBe('I cannot book that.')
    expect(provider.calls).toBe(2)
    expect(provider.requests.map((r) => r.toolChoice)).toEqual([undefined, undefined])
    expect(createEvent).not.toHaveBeenCalled()
    expect(result.functionsCalled).toHaveLength(1)
    expect(result.functionsCalled[0]).toMatchObject({ status: 'invalid-args', outcome: 'llm_gave_up', retryCount: 1, args: invalidEvent })
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([['llm_gave_up', 0]])
    expect(lines).toContainEqual({ level: 'info', line: 'validation_retry_outcome tool=create_event ext=mailbot outcome=llm_gave_up retry_count=0' })
    // The exchange is whole: the call, its error result, then the answer that stood; nothing ephemeral.
    expect(session.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(session.history.at(-1)).toEqual({ role: 'assistant', content: 'I cannot book that.' })
    expect(session.history[2]).toMatchObject({ role: 'tool', isError: true, toolCallId: 'call_create_event' })
    expect(JSON.stringify(session.history)).not.toContain('ephemeral')
  })

  it("reports Imperal's retry_count for llm_gave_up: the retries the model answered with a call, not the retries asked", async () => {
    const { agent, outcomes, lines } = retryAgent([turn(call('create_event', invalidEvent)), turn(call('create_event', otherInvalid)), 'I give up.'])
    const result = await agent.runDetailed('book standup')
    expect(result.text).toBe('I give up.')
    // Two retries asked; the first was answered with a call, the second in prose.
    expect(result.functionsCalled[0]).toMatchObject({ outcome: 'llm_gave_up', retryCount: 2, args: otherInvalid })
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([['llm_gave_up', 1]])
    expect(lines).toContainEqual({ level: 'info', line: 'validation_retry_outcome tool=create_event ext=mailbot outcome=llm_gave_up retry_count=1' })
  })

  it('settles every other call of the turn before the prose answer stands, each once', async () => {
    const { agent, reply } = retryAgent([
      turn(call('create_event', invalidEvent), call('reply_email', { message_id: 'AAMkAGI2TG93AAA=', body: 'hi' })),
      'I cannot book that.',
      'never read',
    ])
    const result = await agent.runDetailed('book standup and reply')
    expect(result.text).toBe('I cannot book that.')
    expect(result.functionsCalled.map((c) => [c.name, c.status, c.outcome])).toEqual([
      ['create_event', 'invalid-args', 'llm_gave_up'],
      ['reply_email', 'ok', 'no_retry'],
    ])
    expect(reply).toHaveBeenCalledTimes(1)
    expect(result.exchange.filter((m) => m.role === 'tool')).toHaveLength(2)
  })

  it('checks a prose answer that stands against the output schema, like any final answer', async () => {
    const provider = scripted([turn(call('create_event', invalidEvent)), '{"booked": false}', 'never read'])
    const agent = Agent.create({ provider })
      .outputSchema(Type.Object({ booked: Type.Boolean() }))
      .tool(makeTools().eventTool)
      .build()
    await expect(agent.runTyped('book standup')).resolves.toEqual({ booked: false })
    expect(provider.calls).toBe(2)
  })

  it('goes on to a final answer of its own when the prose reply does not pass the output schema', async () => {
    const provider = scripted([turn(call('create_event', invalidEvent)), 'Sorry, I cannot.', '{"booked": false}'])
    const agent = Agent.create({ provider })
      .outputSchema(Type.Object({ booked: Type.Boolean() }))
      .tool(makeTools().eventTool)
      .build()
    const result = await agent.runDetailed('book standup')
    expect(result.value).toEqual({ booked: false })
    expect(provider.calls).toBe(3)
    expect(result.functionsCalled).toHaveLength(1)
    // The prose that did not stand is not part of the exchange.
    expect(JSON.stringify(result.exchange)).not.toContain('Sorry, I cannot.')
  })

  it('ends an aborted run as aborted while an async output schema checks the prose answer', async () => {
    const controller = new AbortController()
    const hanging = {
      '~standard': { version: 1, vendor: 'test', validate: () => new Promise<never>(() => {}) },
    }
    const provider = scripted([
      turn(call('create_event', invalidEvent)),
      () => {
        queueMicrotask(() => controller.abort(new Error('user left')))
        return 'Sorry, I cannot.'
      },
      'never read',
    ])
    const agent = Agent.create({ provider })
      .outputSchema(hanging as never)
      .tool(makeTools().eventTool)
      .build()
    await expect(agent.run('book standup', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
    expect(provider.calls).toBe(2)
  })

  it('logs a repeat of the rejected arguments as redundant at WARNING, flags it, and retries until exhausted', async () => {
    const { provider, agent, createEvent, outcomes, lines } = retryAgent(
      [
        turn(call('create_event', invalidEvent)),
        turn(call('create_event', invalidEvent, 'r1')),
        turn(call('create_event', invalidEvent, 'r2')),
        'Could not book it.',
      ],
      { maxToolRetries: 2 },
    )
    const result = await agent.runDetailed('book standup')
    expect(result.text).toBe('Could not book it.')
    expect(provider.calls).toBe(4)
    expect(createEvent).not.toHaveBeenCalled()
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([
      ['redundant', 1],
      ['redundant', 2],
      ['exhausted', 2],
    ])
    expect(lines.filter((l) => l.line.includes('outcome=redundant'))).toEqual([
      { level: 'warn', line: 'validation_retry_outcome tool=create_event ext=mailbot outcome=redundant retry_count=1' },
      { level: 'warn', line: 'validation_retry_outcome tool=create_event ext=mailbot outcome=redundant retry_count=2' },
    ])
    expect(result.functionsCalled).toHaveLength(1)
    expect(result.functionsCalled[0]).toMatchObject({ status: 'invalid-args', outcome: 'exhausted', retryCount: 2, redundantRetries: 2 })
    expect(result.functionsCalled[0]?.argsTried).toEqual([invalidEvent, invalidEvent, invalidEvent])
  })

  it('reports no outcome for a fabricated ID in the first call, as the seed refuses it before its retry loop', async () => {
    const { provider, agent, outcomes, lines, reply } = retryAgent([turn(call('reply_email', { message_id: 'acme-gmail-1', body: 'ok' })), 'I could not.'])
    const result = await agent.runDetailed('reply to it')
    expect(provider.calls).toBe(2)
    expect(reply).not.toHaveBeenCalled()
    expect(outcomes).toEqual([])
    expect(lines.filter((l) => l.line.startsWith('validation_retry_outcome'))).toEqual([])
    expect(result.functionsCalled).toEqual([expect.objectContaining({ status: 'guard-rejected', intercepted: true, retryCount: 0 })])
  })

  it('compares a retry with the call it retried only, as the seed does: a return to older arguments is no redundant retry', async () => {
    const { agent, outcomes, lines } = retryAgent(
      [
        turn(call('create_event', invalidEvent)),
        turn(call('create_event', otherInvalid, 'r1')),
        turn(call('create_event', { tags: ['team'], attendees: 4, at: 'tomorrow', title: 'Standup' }, 'r2')),
        turn(call('create_event', validEvent, 'r3')),
        'Booked.',
      ],
      { maxToolRetries: 3 },
    )
    const result = await agent.runDetailed('book standup')
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([['success', 3]])
    expect(lines.some((l) => l.line.includes('outcome=redundant'))).toBe(false)
    expect(result.functionsCalled[0]).toMatchObject({
      outcome: 'success',
      redundantRetries: 0,
      argsTried: [invalidEvent, otherInvalid, invalidEvent, validEvent],
    })
  })

  it('takes a corrected call after a redundant retry, with its final arguments once in functionsCalled', async () => {
    const { agent, createEvent, outcomes } = retryAgent(
      [turn(call('create_event', invalidEvent)), turn(call('create_event', invalidEvent, 'r1')), turn(call('create_event', validEvent, 'r2')), 'Booked.'],
      { maxToolRetries: 3 },
    )
    const result = await agent.runDetailed('book standup')
    expect(result.text).toBe('Booked.')
    expect(createEvent).toHaveBeenCalledTimes(1)
    expect(outcomes.map((o) => o.outcome)).toEqual(['redundant', 'success'])
    expect(result.functionsCalled).toEqual([expect.objectContaining({ args: validEvent, outcome: 'success', retryCount: 2, redundantRetries: 1 })])
  })

  it('answers the call with an error result and goes on when the retry calls another tool (llm_gave_up)', async () => {
    const { agent, outcomes } = retryAgent([
      turn(call('create_event', otherInvalid)),
      turn(call('reply_email', { message_id: 'AAMkAGI2TG93AAA=', body: 'hi' })),
      'Done.',
    ])
    await expect(agent.run('book standup')).resolves.toBe('Done.')
    expect(outcomes.map((o) => o.outcome)).toEqual(['llm_gave_up'])
  })
})

describe('Agent tool-retry options, one at a time', () => {
  it('with forcedToolReask alone, re-asks prose once with the tool pinned, and lets prose to that re-ask stand', async () => {
    const { provider, agent, outcomes } = retryAgent([turn(call('create_event', invalidEvent)), 'I cannot.', 'Still cannot.', 'never read'], {
      forcedToolReask: true,
    })
    await expect(agent.run('book standup')).resolves.toBe('Still cannot.')
    expect(provider.requests.map((r) => r.toolChoice)).toEqual([undefined, undefined, { tool: 'create_event' }])
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([['llm_gave_up', 0]])
  })

  it('with toolGiveUpStops alone, stops at the first prose reply without a pinned re-ask', async () => {
    const { provider, agent } = retryAgent([turn(call('create_event', invalidEvent)), 'I cannot.', 'never read'], { toolGiveUpStops: true })
    const error = await agent.run('book standup').catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'tool-call-abandoned' })
    expect((error as Error & { reason: string }).reason).not.toContain('toolChoice pinned')
    expect(provider.calls).toBe(2)
  })
})

describe('Agent tool-retry options', () => {
  it.each([
    ['forcedToolReask', 'yes'],
    ['toolGiveUpStops', 1],
    ['forcedToolReask', null],
  ])('refuses %s = %j with a TypeError naming it', (key, value) => {
    const provider = scripted(['x'])
    expect(() => Agent.create({ provider, [key]: value } as never).build()).toThrow(TypeError)
    expect(() => Agent.create({ provider, [key]: value } as never).build()).toThrow(key)
  })

  it.each([
    ['maxToolRetries', -1],
    ['maxToolRetries', 1.5],
    ['maxToolRetries', Number.NaN],
    ['maxToolRetries', '2'],
    ['maxIterations', 0],
  ])('refuses %s = %j with a RangeError naming it where it is written, at Agent.create', (key, value) => {
    expect(() => Agent.create({ provider: scripted(['x']), [key]: value } as never)).toThrow(RangeError)
    expect(() => Agent.create({ provider: scripted(['x']), [key]: value } as never)).toThrow(`Agent.create: ${key}`)
  })

  it('refuses a misspelt tool-retry option with "did you mean"', () => {
    expect(() => Agent.create({ provider: scripted(['x']), forcedToolReAsk: true } as never)).toThrow(/did you mean "forcedToolReask"/)
  })
})
