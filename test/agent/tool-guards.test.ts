import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, guard, idShapeGuard, tool, type GateEventMap, type ToolGuard } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, EventInput, makeTools, turn, validEvent } from './tool-fixtures.ts'

type Failed = GateEventMap['validation_failed']
type Outcome = GateEventMap['tool_retry_outcome']

function setup(steps: Parameters<typeof scripted>[0], toolGuards?: readonly ToolGuard[]) {
  const provider = scripted(steps)
  const tools = makeTools()
  const agent = Agent.create({ provider, model: 'm', ...(toolGuards !== undefined ? { toolGuards } : {}) })
    .tools([tools.eventTool, tools.replyTool])
    .build()
  const failed: Failed[] = []
  const outcomes: Outcome[] = []
  agent.on('validation_failed', (e) => failed.push(e))
  agent.on('tool_retry_outcome', (e) => outcomes.push(e))
  return { provider, agent, failed, outcomes, ...tools }
}

/** What a bundler does to a function whose name collides with another in the bundle. */
function renamedByBundler<G extends ToolGuard>(g: G, name: string): G {
  Object.defineProperty(g, 'name', { value: name })
  return g
}

describe('tool guards', () => {
  it('name themselves to the model by their stable name, whatever a bundler calls the function', async () => {
    const fabricated = { message_id: 'webhostmost-outlook-1', body: 'ok' }
    const { provider, agent } = setup([turn(call('reply_email', fabricated)), 'Done.'], [renamedByBundler(idShapeGuard(), 'idShapeGuard2')])
    await agent.run('reply')
    const result = provider.requests[1]?.messages.at(-1)?.content ?? ''
    expect(result).toMatch(/^BLOCKED: the call to tool 'reply_email' was not executed: guard idShapeGuard rejected its arguments: /)
    expect(result).not.toContain('idShapeGuard2')
  })

  it('carry the name given to guard()', async () => {
    // The check as a bundler leaves it: its own name changed.
    const noStandups = guard('noStandups', function noStandups3(args) {
      return (args as { title?: string }).title === 'Standup' ? { ok: false, reason: 'standups are cancelled' } : { ok: true }
    })
    const { provider, agent } = setup([turn(call('create_event', validEvent)), 'Done.'], [noStandups])
    await agent.run('book')
    expect(provider.requests[1]?.messages.at(-1)?.content).toBe(
      "BLOCKED: the call to tool 'create_event' was not executed: guard noStandups rejected its arguments: standups are cancelled",
    )
  })

  it('read a copy of the arguments: a guard that edits them changes neither what the tool runs on nor the recorded call', async () => {
    const editor = (what: string, checksRawInput: boolean) =>
      guard(
        what,
        (args) => {
          const a = args as { title: string; tags: string[] }
          a.title = `${what} edited`
          a.tags.push(what)
          return { ok: true }
        },
        { checksRawInput },
      )
    const sent = structuredClone(validEvent)
    const { agent, createEvent } = setup([turn(call('create_event', sent)), 'Done.'], [editor('raw', true), editor('typed', false)])
    const result = await agent.runDetailed('book')
    expect(createEvent).toHaveBeenCalledTimes(1)
    expect(createEvent.mock.calls[0]?.[0]).toEqual(validEvent)
    expect(result.functionsCalled.map((c) => c.args)).toEqual([validEvent])
    const recorded = result.exchange.flatMap((m) => m.toolCalls ?? []).map((c) => c.args)
    expect(recorded).toEqual([validEvent])
    expect(sent).toEqual(validEvent)
  })

  it('refuse a guard without a name when the agent is built or the tool defined', () => {
    const anonymous = (() => ({ ok: true })) as unknown as ToolGuard
    expect(() => Agent.create({ provider: scripted([]), toolGuards: [anonymous] }).build()).toThrow(/guard #0 has no name: make it with guard\('name', check\)/)
    expect(() => tool({ name: 't', description: '', input: EventInput, guards: [anonymous], execute: () => 'ok' })).toThrow(TypeError)
    expect(() => guard('', () => ({ ok: true }))).toThrow(TypeError)
  })

  it('report a first-attempt rejection as a tool-args validation failure, not retried, with no retry outcome (as the seed)', async () => {
    const { provider, agent, failed, outcomes } = setup([turn(call('reply_email', { message_id: 'ivalik-gmail-4', body: 'ok' })), 'Done.'])
    const result = await agent.runDetailed('reply')
    expect(provider.calls).toBe(2)
    expect(outcomes).toEqual([])
    expect(result.functionsCalled[0]).toMatchObject({ status: 'guard-rejected', outcome: 'no_retry', retryCount: 0 })
    expect(failed).toEqual([
      expect.objectContaining({
        stage: 'tool-args',
        attempt: 1,
        cumulativeRetries: 1,
        path: 'message_id',
        message: expect.stringMatching(/^guard idShapeGuard rejected the arguments: 'message_id' = "ivalik-gmail-4" looks fabricated/),
        rawOutput: '{"message_id":"ivalik-gmail-4","body":"ok"}',
      }),
    ])
    expect(failed[0]?.issues).toEqual([expect.objectContaining({ path: 'message_id', segments: ['message_id'], code: 'other' })])
  })

  it('report a rejection of a retry input after the schema failure that caused the retry', async () => {
    const { agent, failed, outcomes } = setup([
      turn(call('reply_email', { body: 'ok' })),
      turn(call('reply_email', { message_id: 'ivalik-gmail-4', body: 'ok' })),
      'Done.',
    ])
    await agent.run('reply')
    expect(failed.map((e) => [e.stage, e.attempt, e.path, e.cumulativeRetries])).toEqual([
      ['tool-args', 1, 'message_id', 1],
      ['tool-args', 2, 'message_id', 2],
    ])
    expect(outcomes.map((o) => o.outcome)).toEqual(['fabricated_id_on_retry'])
  })

  it('reject, never fail the run, when their verdict path holds something else than names and indices', async () => {
    const unprintable = {
      toString: () => {
        throw new Error('cannot print')
      },
    }
    const odd = guard('odd', () => ({ ok: false, reason: 'not today', path: ['title', unprintable, 3] as never }))
    const { agent, failed, createEvent } = setup([turn(call('create_event', validEvent)), 'Done.'], [odd])
    const result = await agent.runDetailed('book')
    expect(result.text).toBe('Done.')
    expect(result.functionsCalled[0]).toMatchObject({ status: 'guard-rejected', outcome: 'no_retry' })
    expect(failed.map((f) => f.path)).toEqual(['title[3]'])
    expect(createEvent).not.toHaveBeenCalled()
  })
})

describe('tool guards cut short by the run', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  /** An agent whose guard never settles, the tool_start and tool_end it reports, and a promise of the guard being reached. */
  function hanging() {
    let reached: () => void = () => undefined
    const atGuard = new Promise<void>((resolve) => {
      reached = resolve
    })
    const hangs = guard('hangs', () => {
      reached()
      return new Promise<never>(() => undefined)
    })
    const { agent, createEvent } = setup([turn(call('create_event', validEvent)), 'never sent'], [hangs])
    const starts: string[] = []
    const ends: GateEventMap['tool_end'][] = []
    agent.on('tool_start', (e) => starts.push(e.callId))
    agent.on('tool_end', (e) => ends.push(e))
    return { agent, createEvent, starts, ends, atGuard }
  }

  it('bracket the call with tool_start and tool_end (status aborted) when the run is aborted while a guard never settles', async () => {
    const { agent, createEvent, starts, ends, atGuard } = hanging()
    const controller = new AbortController()
    const run = agent.run('book it', { signal: controller.signal })
    await atGuard
    controller.abort()
    await expect(run).rejects.toMatchObject({ kind: 'aborted' })
    expect(starts).toHaveLength(1)
    expect(ends.map((e) => [e.callId, e.status])).toEqual([[starts[0], 'aborted']])
    expect(createEvent).not.toHaveBeenCalled()
  })

  it('bracket the call the same way when runTimeoutMs passes while a guard never settles', async () => {
    vi.useFakeTimers()
    const { agent, createEvent, starts, ends, atGuard } = hanging()
    const run = agent.run('book it', { runTimeoutMs: 1_000 })
    run.catch(() => undefined)
    await atGuard
    await vi.advanceTimersByTimeAsync(1_000)
    await expect(run).rejects.toMatchObject({ kind: 'run-timeout' })
    expect(ends.map((e) => [e.callId, e.status])).toEqual([[starts[0], 'aborted']])
    expect(createEvent).not.toHaveBeenCalled()
  })
})
