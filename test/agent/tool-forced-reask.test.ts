import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, FailFastKinds, isReliabilityFailFastError, type ModelRequest } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, invalidEvent, makeTools, retryAgent, turn, validEvent } from './tool-fixtures.ts'

/** An agent with both opt-in behaviours on: the forced re-ask and the typed stop (the seed's defaults are pinned in tool-retry-seed-outcomes.test.ts). */
const setup = (steps: Parameters<typeof retryAgent>[0], options: Parameters<typeof retryAgent>[1] = {}) =>
  retryAgent(steps, { forcedToolReask: true, toolGiveUpStops: true, ...options })

/** The run's rejection, or a failure of the test when it succeeds. */
async function failureOf(run: Promise<unknown>) {
  const error = await run.then(
    () => expect.unreachable('the run should fail'),
    (e: unknown) => e,
  )
  expect(isReliabilityFailFastError(error)).toBe(true)
  return error as { kind: string; reason: string; attempts: readonly unknown[] }
}

const pinned = (r: ModelRequest | undefined) => r?.toolChoice

describe('Agent forced re-ask after a rejected tool call (forcedToolReask and toolGiveUpStops on)', () => {
  it('re-asks a prose answer once with toolChoice pinned to the tool, on the same ephemeral tail', async () => {
    const { provider, agent } = setup([
      turn(call('create_event', invalidEvent)),
      'I cannot fix that.',
      turn(call('create_event', validEvent, 'forced')),
      'Done.',
    ])
    await agent.run('book standup')
    expect(provider.requests.map(pinned)).toEqual([undefined, undefined, { tool: 'create_event' }, undefined])
    const [retry, forced] = [provider.requests[1], provider.requests[2]]
    expect(forced?.messages).toEqual(retry?.messages)
    expect(forced?.messages.slice(-2).map((m) => [m.role, m.ephemeral])).toEqual([
      ['assistant', true],
      ['tool', true],
    ])
    expect(forced?.tools?.map((t) => t.name)).toEqual(['create_event', 'reply_email'])
  })

  it('succeeds when the model then calls the tool correctly, and keeps only the accepted exchange', async () => {
    const { agent, createEvent, outcomes } = setup([
      turn(call('create_event', invalidEvent)),
      'I cannot.',
      turn(call('create_event', validEvent, 'forced')),
      'Done.',
    ])
    const session = agent.session()
    const result = await session.runDetailed('book standup')
    expect(result.text).toBe('Done.')
    expect(createEvent).toHaveBeenCalledTimes(1)
    expect(createEvent.mock.calls[0]?.[0]).toEqual(validEvent)
    expect(result.functionsCalled[0]).toMatchObject({ status: 'ok', outcome: 'success', retryCount: 2, argsTried: [invalidEvent, validEvent] })
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([['success', 1]])
    expect(session.history).toEqual([
      { role: 'user', content: 'book standup' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_create_event', name: 'create_event', args: validEvent }] },
      { role: 'tool', content: '{"created":"Standup"}', toolCallId: 'call_create_event', toolName: 'create_event' },
      { role: 'assistant', content: 'Done.' },
    ])
    expect(JSON.stringify(session.history)).not.toMatch(/I cannot|tomorrow|INVALID_ARGUMENTS|ephemeral/)
  })

  it('fails fast with tool-call-abandoned when the forced re-ask is answered in prose too, leaving the history as it was', async () => {
    const { provider, agent, createEvent, outcomes } = setup([turn(call('create_event', invalidEvent)), 'I cannot.', 'Still cannot.', 'never read'])
    const session = agent.session()
    const error = await failureOf(session.run('book standup'))
    expect(error.kind).toBe(FailFastKinds.ToolCallAbandoned)
    expect(error.kind).toBe('tool-call-abandoned')
    expect(error.reason).toContain("tool 'create_event'")
    expect(error.reason).toContain('toolChoice pinned')
    expect(error.attempts).toHaveLength(3)
    expect(provider.calls).toBe(3)
    expect(createEvent).not.toHaveBeenCalled()
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([['llm_gave_up', 0]])
    expect(session.history).toEqual([])
  })

  it('fails fast with tool-call-abandoned when the forced re-ask calls another tool, running neither', async () => {
    const { agent, createEvent, reply } = setup([
      turn(call('create_event', invalidEvent)),
      'I cannot.',
      turn(call('reply_email', { message_id: 'AAMkAGI2TG93AAA=', body: 'hi' })),
      'never read',
    ])
    expect((await failureOf(agent.run('book standup'))).kind).toBe('tool-call-abandoned')
    expect(createEvent).not.toHaveBeenCalled()
    expect(reply).not.toHaveBeenCalled()
  })

  it('insists only once per call: prose on a later retry stops the run without another forced re-ask', async () => {
    const { provider, agent } = setup(
      [turn(call('create_event', invalidEvent)), 'I cannot.', turn(call('create_event', { ...invalidEvent, at: 'next week' }, 'forced')), 'No.', 'never read'],
      { maxToolRetries: 3 },
    )
    expect((await failureOf(agent.run('book standup'))).kind).toBe('tool-call-abandoned')
    expect(provider.calls).toBe(4)
    expect(provider.requests.map(pinned)).toEqual([undefined, undefined, { tool: 'create_event' }, undefined])
  })

  it('makes the forced re-ask even when the prose answer spent the last retry', async () => {
    const { provider, agent } = setup([turn(call('create_event', invalidEvent)), 'I cannot.', turn(call('create_event', validEvent, 'forced')), 'Done.'], {
      maxToolRetries: 1,
    })
    await expect(agent.run('book standup')).resolves.toBe('Done.')
    expect(provider.requests[2]?.toolChoice).toEqual({ tool: 'create_event' })
  })

  it('never re-asks when the tool has no retries at all', async () => {
    const { provider, agent } = setup([turn(call('create_event', invalidEvent)), 'Sorry.'], { maxToolRetries: 0 })
    await expect(agent.run('book standup')).resolves.toBe('Sorry.')
    expect(provider.requests.map(pinned)).toEqual([undefined, undefined])
  })

  it('keeps the prose answers out of the output schema check', async () => {
    const provider = scripted([turn(call('create_event', invalidEvent)), 'not json', turn(call('create_event', validEvent, 'forced')), '{"booked": true}'])
    const agent = Agent.create({ provider, forcedToolReask: true, toolGiveUpStops: true })
      .outputSchema(Type.Object({ booked: Type.Boolean() }))
      .tool(makeTools().eventTool)
      .build()
    await expect(agent.runTyped('book standup')).resolves.toEqual({ booked: true })
  })
})

describe('Agent stuck tool-argument loop (toolGiveUpStops on)', () => {
  it('fails fast as schema-stuck-loop on the second identical rejected attempt, without spending the remaining retries', async () => {
    const reordered = { tags: ['team'], attendees: 4, at: 'tomorrow', title: 'Standup' }
    const { provider, agent, createEvent, outcomes } = setup(
      [turn(call('create_event', invalidEvent)), turn(call('create_event', reordered, 'r1')), turn(call('create_event', validEvent, 'r2')), 'Done.'],
      { maxToolRetries: 5 },
    )
    const session = agent.session()
    const error = await failureOf(session.run('book standup'))
    expect(error.kind).toBe(FailFastKinds.SchemaStuckLoop)
    expect(error.reason).toContain('repeated the rejected arguments')
    expect(provider.calls).toBe(2)
    expect(createEvent).not.toHaveBeenCalled()
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([
      ['redundant', 1],
      ['exhausted', 1],
    ])
    expect(session.history).toEqual([])
  })

  it('counts a repeat after a forced re-ask against the attempt before the prose answer', async () => {
    const { provider, agent } = setup([turn(call('create_event', invalidEvent)), 'I cannot.', turn(call('create_event', invalidEvent, 'forced')), 'never read'])
    expect((await failureOf(agent.run('book standup'))).kind).toBe('schema-stuck-loop')
    expect(provider.calls).toBe(3)
  })

  it('keeps retrying when a repeat is of an older attempt, not the one before it (neither stuck nor redundant, as in the seed)', async () => {
    const other = { ...invalidEvent, at: 'next week' }
    const { agent, outcomes } = setup(
      [
        turn(call('create_event', invalidEvent)),
        turn(call('create_event', other, 'r1')),
        turn(call('create_event', invalidEvent, 'r2')),
        turn(call('create_event', validEvent, 'r3')),
        'Done.',
      ],
      { maxToolRetries: 3 },
    )
    await expect(agent.run('book standup')).resolves.toBe('Done.')
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([['success', 3]])
  })
})
