import { Type } from 'typebox'
import { describe, expect, it, vi } from 'vitest'
import { durablePort, memoryDurablePort } from '../../src/durable.ts'
import { Agent, isReliabilityFailFastError, memorySessionStore, type SessionStore, tool, type ToolContext } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { call, EventInput, invalidEvent, turn, validEvent } from '../agent/tool-fixtures.ts'

const RefundInput = Type.Object({ order: Type.String(), cents: Type.Integer() }, { additionalProperties: false })

/** A refund tool recording each effect by idempotency key, as a payments API would dedupe them. */
function refunds(behaviour: (args: { order: string }, ctx: ToolContext) => unknown = (args) => ({ refunded: args.order })) {
  const keys: (string | undefined)[] = []
  const execute = vi.fn((args: { order: string; cents: number }, ctx: ToolContext) => {
    keys.push(ctx.idempotencyKey)
    return behaviour(args, ctx)
  })
  return { keys, execute, refund: tool({ name: 'refund', description: 'Refund an order', input: RefundInput, execute }) }
}

const agentWith = (steps: readonly ScriptedStep[], ...tools: ReturnType<typeof refunds>['refund'][]) => {
  const provider = scripted(steps)
  return { provider, agent: Agent.create({ provider }).tools(tools).build() }
}
const names = (journal: readonly string[]): string[] => journal.map((entry) => (JSON.parse(entry) as { name: string }).name)
const two = (id1: string, id2: string) => [
  turn(call('refund', { order: 'A', cents: 100 }, id1), call('refund', { order: 'B', cents: 200 }, id2)),
  'Refunded both.',
]

describe('Agent tool calls in a durable run', () => {
  it('runs each tool call as the step tool:<turn>:<callId> with the idempotency key <runId>:<turn>:<callId>, each model attempt as attempt:<turn>:<n>', async () => {
    const journal: string[] = []
    const { keys, refund } = refunds()
    const { agent } = agentWith(two('c1', 'c2'), refund)
    const result = await agent.runDetailed('refund A and B', { durable: memoryDurablePort({ runId: 'order-run', journal }) })
    expect(result.runId).toBe('order-run')
    expect(names(journal)).toEqual(['attempt:1:1', 'tool:1:c1', 'tool:1:c2', 'attempt:2:1'])
    expect(keys).toEqual(['order-run:1:c1', 'order-run:1:c2'])
    expect(result.text).toBe('Refunded both.')
  })

  it('fails fast with kind durable-journal (divergence) when a run is resumed with another input, running no tool and calling no model', async () => {
    const journal: string[] = []
    const first = refunds()
    await agentWith(two('c1', 'c2'), first.refund).agent.run('refund A and B', { durable: memoryDurablePort({ runId: 'r', journal }) })
    const again = refunds()
    const { agent, provider } = agentWith(two('c1', 'c2'), again.refund)
    const error = await agent.run('refund C', { durable: memoryDurablePort({ runId: 'r', journal }) }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'durable-journal', cause: { kind: 'divergence', step: 'attempt:1:1' } })
    expect([provider.calls, again.execute.mock.calls.length]).toEqual([0, 0])
    // The same input replays the journal: no model call, no effect again.
    const same = refunds()
    const replay = agentWith(two('c1', 'c2'), same.refund)
    expect(await replay.agent.run('refund A and B', { durable: memoryDurablePort({ runId: 'r', journal }) })).toBe('Refunded both.')
    expect([replay.provider.calls, same.execute.mock.calls.length]).toEqual([0, 0])
  })

  it('refuses a durable port on agent.stream and session.stream with a TypeError, journaling nothing and calling no model', () => {
    const journal: string[] = []
    const { agent, provider } = agentWith(['Hello.'])
    const port = memoryDurablePort({ runId: 'r', journal })
    expect(() => agent.stream('hi', { durable: port })).toThrow(TypeError)
    expect(() => agent.session().stream('hi', { durable: port })).toThrow(/cannot be streamed.*runDetailed/)
    expect([journal, provider.calls]).toEqual([[], 0])
  })

  it('gives execute no idempotency key without a port', async () => {
    const { keys, refund } = refunds()
    await agentWith(two('c1', 'c2'), refund).agent.run('refund')
    expect(keys).toEqual([undefined, undefined])
  })

  it('resumes a run that died inside its second tool call without running the first again', async () => {
    const journal: string[] = []
    const crash = new AbortController()
    const dying = refunds((args) => {
      if (args.order === 'A') return { refunded: 'A' }
      crash.abort(new Error('process killed'))
      return new Promise(() => {})
    })
    const first = agentWith(two('c1', 'c2'), dying.refund).agent
    await expect(first.run('refund A and B', { durable: memoryDurablePort({ runId: 'r', journal }), signal: crash.signal })).rejects.toSatisfy(
      isReliabilityFailFastError,
    )
    expect(names(journal)).toEqual(['attempt:1:1', 'tool:1:c1'])

    // The first model call is answered from the journal: the provider is asked for the second turn only.
    const resumed = refunds()
    const { agent, provider } = agentWith(['Refunded both.'], resumed.refund)
    const result = await agent.runDetailed('refund A and B', { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect(resumed.execute.mock.calls.map(([args]) => args.order)).toEqual(['B'])
    // The call in flight runs again with the same key: an idempotent API applies it once.
    expect([...dying.keys, ...resumed.keys]).toEqual(['r:1:c1', 'r:1:c2', 'r:1:c2'])
    expect(result.functionsCalled.map((f) => [f.id, f.status, f.result])).toEqual([
      ['c1', 'ok', { refunded: 'A' }],
      ['c2', 'ok', { refunded: 'B' }],
    ])
    expect(provider.calls).toBe(1)
    expect(provider.requests[0]?.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(['{"refunded":"A"}', '{"refunded":"B"}'])
  })

  it('journals no failure for a tool call the run’s abort cut short: the resumed run makes the call once more, with the same key', async () => {
    const journal: string[] = []
    const shutdown = new AbortController()
    // A tool that honours its signal: the abort (a process shutting down) rejects the call in flight.
    const stopping = refunds(
      (_args, ctx) =>
        new Promise((_, reject) => {
          ctx.signal?.addEventListener('abort', () => reject(ctx.signal?.reason))
          queueMicrotask(() => shutdown.abort(new Error('shutting down')))
        }),
    )
    const first = agentWith([turn(call('refund', { order: 'A', cents: 100 }, 'c1')), 'Refunded.'], stopping.refund).agent
    const error = await first.run('refund A', { durable: memoryDurablePort({ runId: 'r', journal }), signal: shutdown.signal }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) ? error.kind : error).toBe('aborted')
    expect(names(journal)).toEqual(['attempt:1:1'])
    const resumed = refunds()
    const { agent, provider } = agentWith(['Refunded.'], resumed.refund)
    const result = await agent.runDetailed('refund A', { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect(result.functionsCalled.map((f) => [f.status, f.result])).toEqual([['ok', { refunded: 'A' }]])
    expect([...stopping.keys, ...resumed.keys]).toEqual(['r:1:c1', 'r:1:c1'])
    expect(provider.requests[0]?.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(['{"refunded":"A"}'])
  })

  it('runs no tool and journals nothing when the engine runs a tool step after the run stopped', async () => {
    const journal: string[] = []
    const caller = new AbortController()
    const inner = memoryDurablePort({ runId: 'r', journal })
    // An engine that queues tool steps and runs them once the caller has given up.
    const late = {
      runId: 'r',
      step: async <T>(name: string, fn: () => T | Promise<T>) => {
        if (name.startsWith('tool:')) {
          caller.abort(new Error('gave up'))
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
        return inner.step(name, fn)
      },
      sleep: inner.sleep,
    }
    const { execute, refund } = refunds()
    const { agent } = agentWith([turn(call('refund', { order: 'A', cents: 100 }, 'c1')), 'Refunded.'], refund)
    const error = await agent.run('refund A', { durable: late, signal: caller.signal }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) ? error.kind : error).toBe('aborted')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(execute).not.toHaveBeenCalled()
    expect(names(journal)).toEqual(['attempt:1:1'])
  })

  it('replays a failed execute as the same tool error for the model', async () => {
    const journal: string[] = []
    const failing = refunds(() => {
      throw new Error('card expired')
    })
    const first = agentWith(two('c1', 'c2'), failing.refund)
    const answered = await first.agent.runDetailed('refund', { durable: memoryDurablePort({ runId: 'r', journal }) })
    // The run resumed after its last model call was journaled: neither the tools nor the provider run again.
    const replayed = refunds()
    const again = agentWith(two('c1', 'c2'), replayed.refund)
    const replay = await again.agent.runDetailed('refund', { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect(replayed.execute).not.toHaveBeenCalled()
    expect(again.provider.calls).toBe(0)
    expect(replay.functionsCalled.map((f) => [f.status, f.error])).toEqual(answered.functionsCalled.map((f) => [f.status, f.error]))
    expect(first.provider.requests[1]?.messages.filter((m) => m.role === 'tool').every((m) => m.isError === true)).toBe(true)
    // Resumed before the second model call: the provider gets the same tool errors as the first run sent.
    const cut = journal.slice(0, 3)
    const resumed = agentWith(['Refunded both.'], refunds().refund)
    await resumed.agent.run('refund', { durable: memoryDurablePort({ runId: 'r', journal: cut }) })
    expect(resumed.provider.requests[0]?.messages).toEqual(first.provider.requests[1]?.messages)
  })

  it('validates and re-asks for arguments outside the step: one step per logical call', async () => {
    const journal: string[] = []
    const createEvent = vi.fn(async (args: { title: string }) => ({ created: args.title }))
    const eventTool = tool({ name: 'create_event', description: 'Create a calendar event', input: EventInput, execute: createEvent })
    const agent = Agent.create({
      provider: scripted([turn(call('create_event', invalidEvent, 'c1')), turn(call('create_event', validEvent, 'retry-id')), 'Booked.']),
    })
      .tool(eventTool)
      .build()
    await agent.run('book', { durable: memoryDurablePort({ runId: 'r', journal }) })
    // The re-ask is a second model call of turn 1: its attempts have a key of their own.
    expect(names(journal)).toEqual(['attempt:1:1', 'attempt:1#2:1', 'tool:1:c1', 'attempt:2:1'])
    expect(createEvent).toHaveBeenCalledTimes(1)
  })

  it('gives tool arguments holding a __proto__ key the tool-argument feedback, as a run without a port does, and replays them', async () => {
    // The model's words, parsed as a provider parses them: `__proto__` an own key of the arguments.
    const hostile = JSON.parse('{"order":"A","cents":100,"__proto__":{"admin":true}}') as unknown
    const steps = [turn(call('refund', hostile, 'c1')), turn(call('refund', { order: 'A', cents: 100 }, 'c2')), 'Refunded.']
    const plain = refunds()
    const bare = agentWith(steps, plain.refund)
    expect(await bare.agent.run('refund A')).toBe('Refunded.')
    const journal: string[] = []
    const first = refunds()
    const durable = agentWith(steps, first.refund)
    expect(await durable.agent.run('refund A', { durable: memoryDurablePort({ runId: 'r', journal }) })).toBe('Refunded.')
    // The same re-ask, the same tool calls as without a port: the hostile arguments never reached execute.
    expect(durable.provider.requests[1]?.messages).toEqual(bare.provider.requests[1]?.messages)
    expect(first.execute.mock.calls.map(([args]) => args)).toEqual([{ order: 'A', cents: 100 }])
    expect(names(journal)).toEqual(['attempt:1:1', 'attempt:1#2:1', 'tool:1:c1', 'attempt:2:1'])
    // The gate handed the arguments on as their JSON text (a forbidden key is never an object past the provider's answer);
    // the journal holds that text, and a replay gives it back as the first run had it.
    const entry = JSON.parse(journal[0] as string) as { value: { response: { toolCalls: { argsJson: string }[] } } }
    expect(JSON.parse(entry.value.response.toolCalls[0]?.argsJson as string)).toBe('{"order":"A","cents":100,"__proto__":{"admin":true}}')
    const again = refunds()
    const replay = agentWith(steps, again.refund)
    expect(await replay.agent.run('refund A', { durable: memoryDurablePort({ runId: 'r', journal }) })).toBe('Refunded.')
    expect([replay.provider.calls, again.execute.mock.calls.length]).toEqual([0, 0])
    expect(({} as Record<string, unknown>)['admin']).toBeUndefined()
  })

  it('hands on a tool result holding a __proto__ key, or a constructor holding a prototype, as a run without a port does, and replays it', async () => {
    // The tool's own data (an API's answer, parsed): `__proto__` an own key of the result.
    const results = [JSON.parse('{"refunded":"A","__proto__":{"admin":true}}') as unknown, { refunded: 'A', constructor: { prototype: { admin: true } } }]
    for (const answer of results) {
      const steps = [turn(call('refund', { order: 'A', cents: 100 }, 'c1')), 'Refunded.']
      const bare = agentWith(steps, refunds(() => answer).refund)
      const without = await bare.agent.runDetailed('refund A')
      const journal: string[] = []
      const durable = agentWith(steps, refunds(() => answer).refund)
      const first = await durable.agent.runDetailed('refund A', { durable: memoryDurablePort({ runId: 'r', journal }) })
      expect(first.functionsCalled.map((f) => [f.status, f.result])).toEqual(without.functionsCalled.map((f) => [f.status, f.result]))
      expect(first.functionsCalled[0]?.status).toBe('ok')
      // The model reads the same tool result as without a port.
      expect(durable.provider.requests[1]?.messages).toEqual(bare.provider.requests[1]?.messages)
      const again = refunds()
      const replay = agentWith(steps, again.refund)
      const replayed = await replay.agent.runDetailed('refund A', { durable: memoryDurablePort({ runId: 'r', journal }) })
      expect(again.execute).not.toHaveBeenCalled()
      expect(JSON.stringify(replayed.functionsCalled[0]?.result)).toBe(JSON.stringify(answer))
      expect(({} as Record<string, unknown>)['admin']).toBeUndefined()
    }
  })

  it('journals a tool result holding a Map or a Set as the model was first sent it, never as {}, and replays that', async () => {
    const answer = { refunded: new Map([['A', 100]]), orders: new Set(['A']) }
    const steps = [turn(call('refund', { order: 'A', cents: 100 }, 'c1')), 'Refunded.']
    const journal: string[] = []
    const first = agentWith(steps, refunds(() => answer).refund)
    await first.agent.run('refund A', { durable: memoryDurablePort({ runId: 'r', journal }) })
    const sent = first.provider.requests[1]?.messages.find((m) => m.role === 'tool')?.content
    expect(sent).toBe('{"refunded":{"A":100},"orders":["A"]}')
    const step = journal.map((entry) => JSON.parse(entry) as { name: string; value: unknown }).find((e) => e.name === 'tool:1:c1')
    expect(step?.value).toEqual({ resultJson: sent })
    const again = refunds()
    const replayed = await agentWith(steps, again.refund).agent.runDetailed('refund A', { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect(again.execute).not.toHaveBeenCalled()
    expect(replayed.functionsCalled[0]?.result).toEqual({ refunded: { A: 100 }, orders: ['A'] })
  })

  it('refuses a journaled tool result whose text is not JSON as a corrupt entry, running no tool', async () => {
    const journal: string[] = []
    const steps = [turn(call('refund', { order: 'A', cents: 100 }, 'c1')), 'Refunded.']
    await agentWith(steps, refunds().refund).agent.run('refund A', { durable: memoryDurablePort({ runId: 'r', journal }) })
    journal[1] = (journal[1] as string).replace(/"resultJson":"[^"]*(\\"[^"]*)*"/, '"resultJson":"{not json"')
    expect(journal[1]).toContain('{not json')
    const again = refunds()
    const error = await agentWith(steps, again.refund)
      .agent.run('refund A', { durable: memoryDurablePort({ runId: 'r', journal }) })
      .catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) ? error.kind : error).toBe('durable-journal')
    expect(again.execute).not.toHaveBeenCalled()
  })

  it('refuses journaled tool arguments whose text is not JSON as a corrupt entry, calling no model', async () => {
    const journal: string[] = []
    await agentWith(two('c1', 'c2'), refunds().refund).agent.run('refund A and B', { durable: memoryDurablePort({ runId: 'r', journal }) })
    journal[0] = (journal[0] as string).replace(/"argsJson":"[^"]*?(\\"[^"]*?)*"/, '"argsJson":"{not json"')
    expect(journal[0]).toContain('"argsJson":"{not json"')
    const replay = agentWith(two('c1', 'c2'), refunds().refund)
    const error = await replay.agent.run('refund A and B', { durable: memoryDurablePort({ runId: 'r', journal }) }).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'durable-journal', cause: { kind: 'corrupt-entry', step: 'attempt:1:1' } })
    expect(replay.provider.calls).toBe(0)
  })

  it('gives two runs idempotency keys that never meet, whatever their ids and the model\'s call ids hold (":" and "%" escaped)', async () => {
    // Run `a` with a call `1:x`, run `a:1` with a call `x`: both would be `a:1:1:x` written plainly.
    const first = refunds()
    await agentWith([turn(call('refund', { order: 'A', cents: 1 }, '1:x')), 'Done.'], first.refund).agent.run('refund', {
      durable: memoryDurablePort({ runId: 'a', journal: [] }),
    })
    const second = refunds()
    await agentWith([turn(call('refund', { order: 'B', cents: 2 }, 'x')), 'Done.'], second.refund).agent.run('refund', {
      durable: memoryDurablePort({ runId: 'a:1', journal: [] }),
    })
    const third = refunds()
    await agentWith([turn(call('refund', { order: 'C', cents: 3 }, '1%3Ax')), 'Done.'], third.refund).agent.run('refund', {
      durable: memoryDurablePort({ runId: 'a', journal: [] }),
    })
    const keys = [...first.keys, ...second.keys, ...third.keys]
    expect(keys).toEqual(['a:1:1%3Ax', 'a%3A1:1:x', 'a:1:1%253Ax'])
    expect(new Set(keys).size).toBe(3)
  })

  it('gives a call id the model repeats in one turn a step of its own', async () => {
    const journal: string[] = []
    const { keys, refund } = refunds()
    await agentWith(two('dup', 'dup'), refund).agent.run('refund', { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect(names(journal)).toEqual(['attempt:1:1', 'tool:1:dup', 'tool:1:dup#2', 'attempt:2:1'])
    expect(keys).toEqual(['r:1:dup', 'r:1:dup#2'])
  })

  it('names a call whose id the model wrote longer than 128 characters by its SHA-256, so the run goes on as without a port', async () => {
    const long = (c: string) => c.repeat(300)
    const journal: string[] = []
    const first = refunds()
    const { agent } = agentWith(two(long('a'), long('b')), first.refund)
    const result = await agent.runDetailed('refund both', { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect(result.functionsCalled.map((f) => f.status)).toEqual(['ok', 'ok'])
    const stepNames = names(journal)
    expect(stepNames).toHaveLength(4)
    expect(stepNames.slice(1, 3).every((name) => /^tool:1:~[0-9a-f]{64}$/.test(name))).toBe(true)
    expect(new Set(first.keys).size).toBe(2)
    expect(first.keys.every((key) => key !== undefined && key.length < 100)).toBe(true)
    // The replay names the calls the same way: nothing runs again.
    const again = refunds()
    const replay = agentWith(two(long('a'), long('b')), again.refund)
    await replay.agent.run('refund both', { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect([again.execute.mock.calls.length, replay.provider.calls]).toEqual([0, 0])
  })

  it('gives each call its own key when the model names a call the way a repeated id is numbered (dup, dup, dup#2)', async () => {
    const journal: string[] = []
    const { keys, refund } = refunds()
    const calls = [
      call('refund', { order: 'A', cents: 1 }, 'dup'),
      call('refund', { order: 'B', cents: 2 }, 'dup'),
      call('refund', { order: 'C', cents: 3 }, 'dup#2'),
    ]
    const { agent } = agentWith([turn(...calls), 'Refunded all three.'], refund)
    expect(await agent.run('refund', { durable: memoryDurablePort({ runId: 'r', journal }) })).toBe('Refunded all three.')
    expect(keys).toEqual(['r:1:dup', 'r:1:dup#2', 'r:1:dup#2#2'])
    expect(new Set(keys).size).toBe(3)
    // The same keys on a replay: no call runs again.
    const again = refunds()
    const replay = agentWith([turn(...calls), 'Refunded all three.'], again.refund)
    expect(await replay.agent.run('refund', { durable: memoryDurablePort({ runId: 'r', journal }) })).toBe('Refunded all three.')
    expect(again.keys).toEqual([])
  })

  it('fails fast with kind durable-journal when the replay asks for other tool calls than the journal holds', async () => {
    const journal: string[] = []
    await agentWith(two('c1', 'c2'), refunds().refund).agent.run('refund', { durable: memoryDurablePort({ runId: 'r', journal }) })
    // The model's answer is journaled: a replay asks for other tool calls only when the journal says so (code changed).
    journal[1] = (journal[1] as string).replace('"tool:1:c1"', '"tool:1:other"')
    const changed = refunds()
    const replay = agentWith(two('c1', 'c2'), changed.refund).agent.run('refund', { durable: memoryDurablePort({ runId: 'r', journal }) })
    await expect(replay).rejects.toMatchObject({ name: 'ReliabilityFailFastError', kind: 'durable-journal' })
    expect(changed.execute).not.toHaveBeenCalled()
  })

  it('commits a stored session as the step session-commit: a resumed run does not append again', async () => {
    const store = memorySessionStore()
    const append = vi.fn(store.append.bind(store))
    const counted: SessionStore = { ...store, load: store.load.bind(store), delete: store.delete.bind(store), append }
    const journal: string[] = []
    const steps = two('c1', 'c2')
    const first = Agent.create({ provider: scripted(steps), sessions: counted })
      .tool(refunds().refund)
      .build()
    const done = await (await first.session('customer-1')).runDetailed('refund', { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect(names(journal)).toEqual(['attempt:1:1', 'tool:1:c1', 'tool:1:c2', 'attempt:2:1', 'session-base', 'session-commit'])
    expect(done.session?.version).toBe(1)
    const again = Agent.create({ provider: scripted(steps), sessions: counted })
      .tool(refunds().refund)
      .build()
    await (await again.session('customer-1')).runDetailed('refund', { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect(append).toHaveBeenCalledTimes(1)
    expect((await store.load('customer-1'))?.messages.filter((m) => m.role === 'user')).toHaveLength(1)
  })

  it('appends nothing when the engine runs the session-commit step after the run ran out of time', async () => {
    const store = memorySessionStore()
    const journal: string[] = []
    const inner = memoryDurablePort({ runId: 'r', journal })
    // An engine that runs the commit step 60 ms late, past the run's 30 ms.
    const late = {
      runId: 'r',
      step: async <T>(name: string, fn: () => T | Promise<T>) => {
        if (name === 'session-commit') await new Promise((resolve) => setTimeout(resolve, 60))
        return inner.step(name, fn)
      },
      sleep: inner.sleep,
    }
    const agent = Agent.create({ provider: scripted(['Hi.']), sessions: store }).build()
    const error = await (await agent.session('c-1')).run('hi', { durable: late, runTimeoutMs: 30 }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) ? error.kind : error).toBe('run-timeout')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect((await store.load('c-1'))?.messages ?? []).toEqual([])
    expect(names(journal)).not.toContain('session-commit')
  })

  it('refuses a durable option that is no port, and a runId that is not the port’s', async () => {
    const { agent } = agentWith(['Hi.'])
    await expect(agent.run('hi', { durable: {} as never })).rejects.toThrow(/durable must be a DurablePort/)
    await expect(agent.run('hi', { durable: memoryDurablePort({ runId: 'a' }), runId: 'b' })).rejects.toThrow(TypeError)
    expect(await agent.runDetailed('hi', { durable: memoryDurablePort({ runId: 'a' }), runId: 'a' })).toMatchObject({ runId: 'a' })
  })
})

describe('Agent tool calls on a port of yours', () => {
  it('answers the model with the tool error when your port throws on a tool step, and takes a plain value it answers', async () => {
    // Model attempts run (their fn answers the journaled attempt); tool steps are your engine's.
    const throwing = {
      runId: 'mine',
      step: (name: string, fn: () => unknown) => {
        if (name.startsWith('attempt:')) return fn()
        throw new Error('engine down')
      },
      sleep: async () => {},
    }
    const { refund } = refunds()
    const first = agentWith(two('c1', 'c2'), refund)
    const result = await first.agent.runDetailed('refund', { durable: throwing as never })
    expect(result.functionsCalled.map((f) => [f.status, f.error])).toEqual([
      ['execute-failed', expect.stringContaining('engine down')],
      ['execute-failed', expect.stringContaining('engine down')],
    ])
    const plain = {
      runId: 'mine',
      step: (name: string, fn: () => unknown) => (name.startsWith('attempt:') ? fn() : (fn(), 'journaled elsewhere')),
      sleep: async () => {},
    }
    const second = await agentWith(two('c1', 'c2'), refunds().refund).agent.runDetailed('refund', { durable: plain as never })
    expect(second.functionsCalled.map((f) => f.result)).toEqual(['journaled elsewhere', 'journaled elsewhere'])
  })
})

describe('Agent tool calls when the engine fails', () => {
  it('stops the run as durable-journal before the provider is called, when your port throws on the model attempt', async () => {
    const throwing = {
      runId: 'mine',
      step: () => {
        throw new Error('engine down')
      },
      sleep: async () => {},
    }
    const { execute, refund } = refunds()
    const { agent, provider } = agentWith(two('c1', 'c2'), refund)
    await expect(agent.run('refund', { durable: throwing })).rejects.toMatchObject({ kind: 'durable-journal', reason: expect.stringContaining('engine down') })
    expect(provider.calls).toBe(0)
    expect(execute).not.toHaveBeenCalled()
  })

  it('stops the run as durable-journal instead of telling the model, when the engine cannot run a tool step', async () => {
    const port = durablePort({ runId: 'r', run: () => Promise.reject(new Error('cancelled')), sleep: async () => {} })
    const { execute, refund } = refunds()
    const run = agentWith(two('c1', 'c2'), refund).agent.run('refund', { durable: port })
    await expect(run).rejects.toMatchObject({ name: 'ReliabilityFailFastError', kind: 'durable-journal', reason: expect.stringContaining('cancelled') })
    expect(execute).not.toHaveBeenCalled()
  })
})
