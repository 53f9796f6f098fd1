import { Type } from 'typebox'
import { describe, expect, it, vi } from 'vitest'
import { Agent, tool, type GateEventMap } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, invalidEvent, makeTools, retryAgent as setup, turn, validEvent } from './tool-fixtures.ts'

describe('Agent tool-argument retry', () => {
  it('makes no extra model call on the happy path', async () => {
    const { provider, agent, outcomes, createEvent } = setup([turn(call('create_event', validEvent)), 'Done.'])
    const result = await agent.runDetailed('book standup')
    expect(provider.calls).toBe(2)
    expect(createEvent).toHaveBeenCalledTimes(1)
    expect(result.functionsCalled).toEqual([
      expect.objectContaining({
        name: 'create_event',
        args: validEvent,
        status: 'ok',
        outcome: 'no_retry',
        retryCount: 0,
        intercepted: false,
        result: { created: 'Standup' },
      }),
    ])
    expect(outcomes).toEqual([{ runId: expect.any(String), turn: 1, tool: 'create_event', outcome: 'no_retry', retryCount: 0, agent: 'mailbot' }])
  })

  it('succeeds on the first retry with exactly 2 model calls for the tool call and one entry holding the retry arguments', async () => {
    const { provider, agent, createEvent, lines } = setup([
      turn(call('create_event', invalidEvent)),
      turn(call('create_event', validEvent, 'call_retry')),
      'Done.',
    ])
    const result = await agent.runDetailed('book standup')
    // Model calls: the turn that made the call, one retry, then the turn that reads the result.
    expect(provider.calls).toBe(3)
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', isError: true, ephemeral: true })
    expect(provider.requests[2]?.messages.some((m) => m.ephemeral === true)).toBe(false)
    expect(result.functionsCalled).toHaveLength(1)
    expect(result.functionsCalled[0]).toMatchObject({
      id: 'call_create_event',
      args: validEvent,
      retryCount: 1,
      outcome: 'success',
      status: 'ok',
      argsTried: [invalidEvent, validEvent],
    })
    expect(createEvent).toHaveBeenCalledTimes(1)
    expect(createEvent.mock.calls[0]?.[0]).toEqual(validEvent)
    expect(lines).toContainEqual({ level: 'info', line: 'validation_retry_outcome tool=create_event ext=mailbot outcome=success retry_count=1' })
  })

  it('sends the retry as base messages plus an ephemeral [assistant(failing call), tool(is_error feedback)] tail', async () => {
    const { provider, agent } = setup([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Done.'])
    await agent.run('book standup')
    const [first, retry] = provider.requests
    expect(retry?.messages.slice(0, -2)).toEqual(first?.messages)
    expect(retry?.messages.slice(-2)).toEqual([
      { role: 'assistant', content: '', toolCalls: [call('create_event', invalidEvent)], ephemeral: true },
      {
        role: 'tool',
        toolCallId: 'call_create_event',
        toolName: 'create_event',
        isError: true,
        ephemeral: true,
        content: [
          'Your previous tool call had invalid arguments. Fix these issues:',
          "- 'at': expected ISO datetime (e.g. '2026-05-03T00:00:00'), got \"tomorrow\"",
          '',
          'Retry the tool call with corrected arguments.',
        ].join('\n'),
      },
    ])
    expect(retry?.tools?.map((t) => t.name)).toEqual(['create_event', 'reply_email'])
  })

  it('exhausts the budget after budget+1 calls, records one failed entry and answers the model with the invalid fields', async () => {
    const second = { ...invalidEvent, attendees: 'four' }
    const third = { ...invalidEvent, title: 7 }
    const { provider, agent, createEvent, outcomes, lines } = setup([
      turn(call('create_event', invalidEvent)),
      turn(call('create_event', second, 'r1')),
      turn(call('create_event', third, 'r2')),
      'Sorry, I could not book it.',
    ])
    const result = await agent.runDetailed('book standup')
    expect(provider.calls).toBe(2 + 1 + 1)
    expect(createEvent).not.toHaveBeenCalled()
    expect(result.functionsCalled).toHaveLength(1)
    expect(result.functionsCalled[0]).toMatchObject({ status: 'invalid-args', outcome: 'exhausted', retryCount: 2, intercepted: true, args: third })
    // The tail is rebuilt from the base for each retry: the second retry carries only the latest failure.
    expect(provider.requests[2]?.messages).toHaveLength(provider.requests[1]?.messages.length ?? -1)
    expect(provider.requests[2]?.messages.at(-2)?.toolCalls?.[0]?.args).toEqual(second)
    const answer = provider.requests[3]?.messages.at(-1)
    expect(answer).toMatchObject({ role: 'tool', isError: true, toolCallId: 'call_create_event' })
    expect(answer?.content).toContain("INVALID_ARGUMENTS: the call to tool 'create_event' was not executed")
    expect(answer?.content).toContain("- 'title': expected string, got number")
    expect(answer?.content).toContain("- 'at': expected ISO datetime")
    expect(outcomes.at(-1)).toEqual({ runId: expect.any(String), turn: 1, tool: 'create_event', outcome: 'exhausted', retryCount: 2, agent: 'mailbot' })
    expect(lines).toContainEqual({ level: 'warn', line: 'validation_retry_outcome tool=create_event ext=mailbot outcome=exhausted retry_count=2' })
    expect(result.text).toBe('Sorry, I could not book it.')
  })

  it('with forcedToolReask, answers prose on a retry with one re-ask pinned to the tool, without checking that prose against the output schema', async () => {
    const provider = scripted([
      turn(call('create_event', invalidEvent)),
      'I cannot fix that.',
      turn(call('create_event', validEvent, 'forced')),
      '{"booked": true}',
    ])
    const tools = makeTools()
    const agent = Agent.create({ provider, forcedToolReask: true })
      .outputSchema(Type.Object({ booked: Type.Boolean() }))
      .tool(tools.eventTool)
      .build()
    const result = await agent.runDetailed('book standup')
    expect(provider.calls).toBe(4)
    expect(provider.requests[2]?.toolChoice).toEqual({ tool: 'create_event' })
    expect(result.value).toEqual({ booked: true })
    expect(result.functionsCalled[0]).toMatchObject({ outcome: 'success', retryCount: 2, status: 'ok' })
  })

  it('ends the call as llm_gave_up when the retry switches to another tool, and runs neither', async () => {
    const { provider, agent, createEvent, reply } = setup([
      turn(call('create_event', invalidEvent)),
      turn(call('reply_email', { message_id: 'AAMkAGI2TG93AAA=', body: 'hi' })),
      'Done.',
    ])
    const result = await agent.runDetailed('book standup')
    expect(provider.calls).toBe(3)
    expect(result.functionsCalled).toHaveLength(1)
    expect(result.functionsCalled[0]).toMatchObject({ name: 'create_event', outcome: 'llm_gave_up' })
    expect(createEvent).not.toHaveBeenCalled()
    expect(reply).not.toHaveBeenCalled()
  })

  it('logs a redundant retry (the arguments of the attempt it retried, keys sorted), counts it against the budget, then exhausts', async () => {
    const reordered = { tags: ['team'], attendees: 4, at: 'next week', title: 'Standup' }
    const { provider, agent, outcomes, lines } = setup([
      turn(call('create_event', invalidEvent)),
      turn(call('create_event', { ...invalidEvent, at: 'next week' }, 'r1')),
      turn(call('create_event', reordered, 'r2')),
      'Done.',
    ])
    const result = await agent.runDetailed('book standup')
    expect(provider.calls).toBe(4)
    expect(outcomes.map((o) => [o.outcome, o.retryCount])).toEqual([
      ['redundant', 2],
      ['exhausted', 2],
    ])
    expect(lines.map((l) => `${l.level} ${l.line}`)).toEqual([
      'warn validation_retry_outcome tool=create_event ext=mailbot outcome=redundant retry_count=2',
      'warn validation_retry_outcome tool=create_event ext=mailbot outcome=exhausted retry_count=2',
    ])
    expect(result.functionsCalled[0]).toMatchObject({ outcome: 'exhausted', redundantRetries: 1, retryCount: 2 })
  })

  it('takes the first call to the same tool when a retry reply holds several', async () => {
    const second = { ...validEvent, title: 'Second' }
    const { agent, createEvent } = setup([
      turn(call('create_event', invalidEvent)),
      turn(call('reply_email', { message_id: 'x', body: 'y' }), call('create_event', validEvent, 'a'), call('create_event', second, 'b')),
      'Done.',
    ])
    const result = await agent.runDetailed('book standup')
    expect(createEvent).toHaveBeenCalledTimes(1)
    expect(createEvent.mock.calls[0]?.[0]).toEqual(validEvent)
    expect(result.functionsCalled).toHaveLength(1)
    expect(result.functionsCalled[0]?.args).toEqual(validEvent)
  })

  it('answers an unknown tool with UNKNOWN_TOOL listing the available tools, without retrying', async () => {
    const { provider, agent, outcomes } = setup([turn(call('delete_everything', {})), 'Done.'])
    const result = await agent.runDetailed('clean up')
    expect(provider.calls).toBe(2)
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      isError: true,
      content: "UNKNOWN_TOOL: there is no tool named 'delete_everything'. Available tools: create_event, reply_email.",
    })
    expect(result.functionsCalled[0]).toMatchObject({ status: 'unknown-tool', outcome: 'no_retry', retryCount: 0, intercepted: true })
    expect(outcomes).toEqual([{ runId: expect.any(String), turn: 1, tool: 'delete_everything', outcome: 'no_retry', retryCount: 0, agent: 'mailbot' }])
  })

  it('does not retry when execute throws, and tells the model what failed', async () => {
    const provider = scripted([turn(call('flaky', { n: 1 })), 'Done.'])
    const execute = vi.fn(() => {
      throw new Error('database is down')
    })
    const agent = Agent.create({ provider })
      .tool(tool({ name: 'flaky', description: '', input: Type.Object({ n: Type.Number() }), execute }))
      .build()
    const result = await agent.runDetailed('go')
    expect(provider.calls).toBe(2)
    expect(execute).toHaveBeenCalledTimes(1)
    expect(result.functionsCalled[0]).toMatchObject({
      status: 'execute-failed',
      outcome: 'no_retry',
      intercepted: false,
      error: "TOOL_ERROR: tool 'flaky' failed: database is down",
    })
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', isError: true, content: "TOOL_ERROR: tool 'flaky' failed: database is down" })
  })

  it('does not retry a tool that was aborted, and reports it as aborted', async () => {
    const provider = scripted([turn(call('slow', {})), 'Done.'])
    const execute = () => Promise.reject(new DOMException('The operation timed out.', 'TimeoutError'))
    const agent = Agent.create({ provider })
      .tool(tool({ name: 'slow', description: '', input: Type.Object({}), execute }))
      .build()
    const result = await agent.runDetailed('go')
    expect(provider.calls).toBe(2)
    expect(result.functionsCalled[0]).toMatchObject({ status: 'aborted', outcome: 'no_retry' })
    expect(result.functionsCalled[0]?.error).toMatch(/^TOOL_ABORTED: tool 'slow' was aborted/)
  })

  it('disables retries with a budget of 0 and lets a tool override the agent budget', async () => {
    const off = setup([turn(call('create_event', invalidEvent)), 'Done.'], { maxToolRetries: 0 })
    const offResult = await off.agent.runDetailed('book')
    expect(off.provider.calls).toBe(2)
    expect(offResult.functionsCalled[0]).toMatchObject({ outcome: 'exhausted', retryCount: 0 })

    const provider = scripted([turn(call('t', { n: 'x' })), turn(call('t', { n: 'y' })), 'Done.'])
    const strictTool = tool({ name: 't', description: '', input: Type.Object({ n: Type.Number() }), maxRetries: 1, execute: () => 'ok' })
    const result = await Agent.create({ provider, maxToolRetries: 5 }).tool(strictTool).build().runDetailed('go')
    expect(provider.calls).toBe(3)
    expect(result.functionsCalled[0]).toMatchObject({ outcome: 'exhausted', retryCount: 1 })
  })

  it('emits validation_failed with stage tool-args for every failing attempt', async () => {
    const { agent } = setup([
      turn(call('create_event', invalidEvent)),
      turn(call('create_event', { ...validEvent, tags: 'team' })),
      turn(call('create_event', validEvent)),
      'Done.',
    ])
    const failures: GateEventMap['validation_failed'][] = []
    agent.on('validation_failed', (e) => failures.push(e))
    await agent.run('book')
    expect(failures.map((f) => [f.stage, f.attempt, f.path])).toEqual([
      ['tool-args', 1, 'at'],
      ['tool-args', 2, 'tags'],
    ])
  })

  it('retries arguments that arrived as a string that is not JSON, saying so', async () => {
    const { provider, agent, createEvent } = setup([
      turn(call('create_event', '{"title": "Standup",')),
      turn(call('create_event', JSON.stringify(validEvent))),
      'Done.',
    ])
    const result = await agent.runDetailed('book')
    expect(provider.requests[1]?.messages.at(-1)?.content).toMatch(/- '\(root\)': the arguments are not valid JSON/)
    expect(createEvent.mock.calls[0]?.[0]).toEqual(validEvent)
    expect(result.functionsCalled[0]).toMatchObject({ outcome: 'success', args: validEvent })
  })

  it('logs no_retry at debug level with the agent name as ext', async () => {
    const { agent, lines } = setup([turn(call('create_event', validEvent)), 'Done.'])
    await agent.run('book')
    expect(lines).toEqual([{ level: 'debug', line: 'validation_retry_outcome tool=create_event ext=mailbot outcome=no_retry retry_count=0' }])
  })
})
