import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError, ProviderError, tool, type Message } from '../../src/index.ts'
import { scripted, simulated, type ScriptedStepFunction } from '../../src/providers/index.ts'
import { call, EventInput, invalidEvent, makeTools, turn, validEvent } from './tool-fixtures.ts'

describe('Agent tool loop', () => {
  it('sends each tool as name, description and the JSON Schema of its input', async () => {
    const provider = scripted(['Hi.'])
    const { eventTool } = makeTools()
    await Agent.create({ provider }).tool(eventTool).build().run('hello')
    expect(provider.requests[0]?.tools).toEqual([{ name: 'create_event', description: 'Create a calendar event', inputSchema: EventInput }])
  })

  it('sends no tools to the provider when the agent has none', async () => {
    const provider = scripted(['Hi.'])
    await Agent.create({ provider }).build().run('hello')
    expect(provider.requests[0]?.tools).toBeUndefined()
  })

  it('executes several calls of one turn in order and appends their results before the next turn', async () => {
    const reply = { message_id: '18c4f2a9b7e3d105', body: 'See you' }
    const provider = scripted([turn(call('create_event', validEvent, 'c1'), call('reply_email', reply, 'c2')), 'Booked and replied.'])
    const tools = makeTools()
    const agent = Agent.create({ provider }).tools([tools.eventTool, tools.replyTool]).build()
    const result = await agent.runDetailed('book and reply')
    expect(result.functionsCalled.map((f) => [f.id, f.name, f.status])).toEqual([
      ['c1', 'create_event', 'ok'],
      ['c2', 'reply_email', 'ok'],
    ])
    expect(provider.requests[1]?.messages.slice(1)).toEqual([
      { role: 'assistant', content: '', toolCalls: [call('create_event', validEvent, 'c1'), call('reply_email', reply, 'c2')] },
      { role: 'tool', content: '{"created":"Standup"}', toolCallId: 'c1', toolName: 'create_event' },
      { role: 'tool', content: 'replied to 18c4f2a9b7e3d105', toolCallId: 'c2', toolName: 'reply_email' },
    ])
    expect(result.turns).toBe(2)
    expect(result.text).toBe('Booked and replied.')
  })

  it('loops over several tool turns until the final answer', async () => {
    const provider = scripted([turn(call('create_event', validEvent, 'a')), turn(call('create_event', { ...validEvent, title: 'Retro' }, 'b')), 'Two events.'])
    const tools = makeTools()
    const result = await Agent.create({ provider }).tool(tools.eventTool).build().runDetailed('book two')
    expect(tools.createEvent).toHaveBeenCalledTimes(2)
    expect(result.functionsCalled.map((f) => f.id)).toEqual(['a', 'b'])
    expect(result.turns).toBe(3)
  })

  it('commits user message, tool turns with final arguments, results and the answer, and never an ephemeral message', async () => {
    const provider = scripted([turn(call('create_event', invalidEvent, 'c1')), turn(call('create_event', validEvent, 'retry-id')), 'Booked.'])
    const tools = makeTools()
    const agent = Agent.create({ provider }).tool(tools.eventTool).build()
    const result = await agent.runDetailed('book standup')
    const expected: Message[] = [
      { role: 'user', content: 'book standup' },
      { role: 'assistant', content: '', toolCalls: [call('create_event', validEvent, 'c1')] },
      { role: 'tool', content: '{"created":"Standup"}', toolCallId: 'c1', toolName: 'create_event' },
      { role: 'assistant', content: 'Booked.' },
    ]
    expect(agent.history).toEqual(expected)
    expect(result.exchange).toEqual(expected)
    expect(agent.history.some((m) => m.ephemeral === true)).toBe(false)
  })

  it('fails with kind max-iterations when no final answer comes within maxIterations turns, without running the last calls', async () => {
    const provider = scripted([
      turn(call('create_event', validEvent, 'a')),
      turn(call('create_event', validEvent, 'b')),
      turn(call('create_event', validEvent, 'c')),
    ])
    const tools = makeTools()
    const agent = Agent.create({ provider, maxIterations: 2 }).tool(tools.eventTool).build()
    const error = await agent.run('loop').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'max-iterations', reason: expect.stringContaining('no final answer after 2 model turns (maxIterations = 2)') })
    expect(provider.calls).toBe(2)
    expect(tools.createEvent).toHaveBeenCalledTimes(1)
    expect(agent.history).toEqual([])
  })

  it('leaves the history as it was when a later turn fails, and reports every attempt of the run', async () => {
    const provider = scripted(['First answer.', turn(call('create_event', validEvent)), new ProviderError('boom', { kind: 'http-5xx', status: 500 })])
    const tools = makeTools()
    const agent = Agent.create({ provider }).tool(tools.eventTool).build()
    await agent.run('first')
    const before = agent.history
    const error = await agent.run('second').catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'http-5xx' })
    expect(isReliabilityFailFastError(error) && error.attempts).toHaveLength(2)
    expect(agent.history).toBe(before)
    expect(agent.history).toHaveLength(2)
  })

  it('keeps concurrent runs in different sessions apart', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    // Each session's model echoes what it saw; the first turn of each waits so both runs interleave.
    const step: ScriptedStepFunction = async (request) => {
      const last = request.messages.at(-1)
      if (last?.role === 'user') {
        await gate
        return turn(call('create_event', { ...validEvent, title: last.content }, `id-${last.content}`))
      }
      return `answer after ${request.messages.map((m) => m.content).join(' | ')}`
    }
    const provider = scripted([step, step, step, step])
    const tools = makeTools()
    const agent = Agent.create({ provider }).tool(tools.eventTool).build()
    const one = agent.session()
    const two = agent.session()
    const runs = Promise.all([one.run('alpha'), two.run('beta')])
    release()
    const [a, b] = await runs
    expect(a).not.toContain('beta')
    expect(b).not.toContain('alpha')
    expect(one.history.map((m) => m.content)).toEqual(['alpha', '', '{"created":"alpha"}', a])
    expect(two.history.map((m) => m.content)).toEqual(['beta', '', '{"created":"beta"}', b])
    expect(agent.history).toEqual([])
  })

  it('returns the typed value of the final answer after tool turns', async () => {
    const provider = scripted([turn(call('create_event', validEvent)), '{"booked": true}'])
    const tools = makeTools()
    const agent = Agent.create({ provider })
      .outputSchema(Type.Object({ booked: Type.Boolean() }))
      .tool(tools.eventTool)
      .build()
    expect(await agent.runTyped('book')).toEqual({ booked: true })
  })

  it('runs a tool end to end on the simulated model', async () => {
    const lookup = tool({
      name: 'lookup_order',
      description: 'Find an order',
      input: Type.Object({ orderId: Type.String() }),
      execute: ({ orderId }) => ({ orderId, status: 'shipped' }),
    })
    const agent = Agent.create({ provider: simulated({ seed: 3 }), model: 'sim-1' })
      .tool(lookup)
      .build()
    const result = await agent.runDetailed('where is order 42?')
    expect(result.functionsCalled).toHaveLength(1)
    expect(result.functionsCalled[0]).toMatchObject({ name: 'lookup_order', status: 'ok', outcome: 'no_retry', result: { status: 'shipped' } })
    expect(result.text).toContain('Simulated answer to: where is order 42?')
  })

  it('lets the simulated model fix its arguments from the retry feedback', async () => {
    // The simulated model's first call is valid; start from a broken one to exercise the retry path.
    const broken = scripted([turn(call('create_event', invalidEvent))])
    const step: ScriptedStepFunction = (request, index) => (index === 0 ? broken.complete(request) : simulated({ seed: 5 }).complete(request))
    const mixed = Agent.create({ provider: scripted([step, step, step]) })
      .tool(tool({ name: 'create_event', description: '', input: EventInput, execute: () => 'ok' }))
      .build()
    const result = await mixed.runDetailed('book standup')
    expect(result.functionsCalled[0]).toMatchObject({ outcome: 'success', retryCount: 1, status: 'ok' })
    expect((result.functionsCalled[0]?.args as { at: string } | undefined)?.at).not.toBe('tomorrow')
  })

  it('keeps provider failover working across tool turns', async () => {
    const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })
    const primary = scripted([down(), down()], { name: 'primary' })
    const backup = scripted([turn(call('create_event', validEvent)), 'Booked.'], { name: 'backup' })
    const tools = makeTools()
    const agent = Agent.create({ provider: primary })
      .tool(tools.eventTool)
      .reliability({
        providers: [
          { name: 'primary', provider: primary, model: 'big' },
          { name: 'backup', provider: backup, model: 'small' },
        ],
        postDecide: [{ when: (s) => s.errorKind === 'http-5xx' && s.canSwitchProvider, then: 'retry-other', kind: 'failover' }],
      })
      .build()
    const result = await agent.runDetailed('book')
    expect(result.text).toBe('Booked.')
    // Every turn is a gate call of its own, so each one starts again from the first provider.
    expect(result.attempts.map((a) => a.provider)).toEqual(['primary', 'backup', 'primary', 'backup'])
    expect(backup.requests[0]?.model).toBe('small')
    expect(tools.createEvent).toHaveBeenCalledTimes(1)
  })

  it('passes the run signal and call id to execute', async () => {
    const provider = scripted([turn(call('probe', {}, 'p1')), 'Done.'])
    const seen: unknown[] = []
    const probe = tool({ name: 'probe', description: '', input: Type.Object({}), execute: (_args, ctx) => (seen.push(ctx), 'ok') })
    const controller = new AbortController()
    await Agent.create({ provider, name: 'prober' }).tool(probe).build().run('go', { signal: controller.signal })
    expect(seen).toEqual([{ signal: controller.signal, callId: 'p1', agent: 'prober', retryCount: 0 }])
  })

  it.each([
    ['without listeners', false],
    ['with a tool_start listener (which freezes the call it reports)', true],
  ])('hands the tool arguments of its own %s: editing them changes neither functionsCalled nor the history', async (_label, listen) => {
    const trim = tool({
      name: 'trim',
      description: 'Trims a title',
      input: Type.Object({ title: Type.String(), tags: Type.Array(Type.String()) }),
      execute: (args: { title: string; tags: string[] }) => {
        args.title = args.title.trim()
        args.tags.push('edited')
        return args.title
      },
    })
    const sent = { title: '  Standup  ', tags: ['team'] }
    const agent = Agent.create({ provider: scripted([turn(call('trim', sent)), 'Trimmed.']) })
      .tool(trim)
      .build()
    if (listen) agent.on('tool_start', () => undefined)
    const session = agent.session()
    const result = await session.runDetailed('trim it')
    expect(result.functionsCalled[0]).toMatchObject({ status: 'ok', result: 'Standup', args: { title: '  Standup  ', tags: ['team'] } })
    expect(session.history[1]).toMatchObject({ role: 'assistant', toolCalls: [{ args: { title: '  Standup  ', tags: ['team'] } }] })
  })

  it('stops with kind aborted when the run is aborted during a tool, leaving the history unchanged', async () => {
    const controller = new AbortController()
    const provider = scripted([turn(call('stop', {})), 'never'])
    const stop = tool({ name: 'stop', description: '', input: Type.Object({}), execute: () => (controller.abort(), 'stopped') })
    const agent = Agent.create({ provider }).tool(stop).build()
    await expect(agent.run('go', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
    expect(provider.calls).toBe(1)
    expect(agent.history).toEqual([])
  })
})

describe('Agent maxIterations', () => {
  it('names the limit and the tools still called in its error', async () => {
    const noop = tool({ name: 'noop', description: '', input: Type.Object({}), execute: () => 'ok' })
    const provider = scripted([turn(call('noop', {}, 'a'))])
    const error = await Agent.create({ provider, maxIterations: 1 })
      .tool(noop)
      .build()
      .run('go')
      .catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as Error).message).toMatch(/max-iterations.*no final answer after 1 model turns \(maxIterations = 1\).*noop/)
  })

  it('rejects a maxIterations below 1 when the agent is built', () => {
    expect(() => Agent.create({ provider: scripted([]), maxIterations: 0 }).build()).toThrow(/maxIterations must be a positive integer/)
  })
})
