import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from 'typebox'
import { afterAll, describe, expect, it } from 'vitest'
import { Agent, isApprovalPendingError, memorySessionStore, type Message, type SessionStore, tool } from '../../src/index.ts'
import { type ScriptedStep, scripted } from '../../src/providers/index.ts'
import { sqliteSessionStore } from '../../src/sqlite.ts'
import { approvalAgent, refundCall } from '../approval/support/approval-agent.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-call-ids-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Ids a provider may answer a call with that no stored conversation can hold. */
const NO_IDS: readonly (readonly [string, unknown])[] = [
  ['an empty string', ''],
  ['undefined', undefined],
  ['null', null],
  ['a number', 7],
  ['an object', { id: 'x' }],
]

const STORES: readonly (readonly [string, () => SessionStore])[] = [
  ['memory', () => memorySessionStore()],
  ['SQLite', () => sqliteSessionStore({ path: join(dir, `ids-${Math.random().toString(36).slice(2)}.db`) })],
]

function echoAgent(id: unknown, sessions?: SessionStore, steps?: readonly ScriptedStep[]) {
  const runs: number[] = []
  const echo = tool({
    name: 'echo',
    description: 'Echo',
    input: Type.Object({ x: Type.Number() }),
    execute: ({ x }: { x: number }) => {
      runs.push(x)
      return `got ${x}`
    },
  })
  const turn = { content: '', toolCalls: [0, 1].map((x) => ({ id: id as string, name: 'echo', args: { x } })) }
  const provider = scripted(steps ?? [turn, 'done'])
  const agent = Agent.create({ provider, model: 'm', ...(sessions === undefined ? {} : { sessions }) })
    .tool(echo)
    .build()
  return { agent, provider, runs }
}

/** The ids of the assistant's calls and of the tool results of a message list, in order. */
function callIds(messages: readonly Message[]): { readonly calls: string[]; readonly results: string[] } {
  return {
    calls: messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)),
    results: messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId as string] : [])),
  }
}

describe('Agent tool calls without an id', () => {
  for (const [store, makeStore] of STORES) {
    it.each(NO_IDS)(`commits the tool turn of calls whose id is %s to the ${store} store, each call given an id of its own`, async (_what, id) => {
      const sessions = makeStore()
      const { agent, runs } = echoAgent(id, sessions)
      const result = await (await agent.session('c1')).runDetailed('go')
      expect(result.text).toBe('done')
      expect(runs).toEqual([0, 1])
      const { calls, results } = callIds((await agent.session('c1')).history)
      expect(calls).toHaveLength(2)
      expect(new Set(calls).size).toBe(2)
      for (const c of calls) expect(c).toMatch(/^call_[\w-]+_t1_\d$/)
      expect(results).toEqual(calls)
      expect(result.functionsCalled.map((f) => f.id)).toEqual(calls)
    })
  }

  it('sends the next turn tool results that answer the ids its calls were given', async () => {
    const { agent, provider } = echoAgent('')
    const session = agent.session()
    await session.run('go')
    const { calls, results } = callIds(provider.requests[1]?.messages ?? [])
    expect(calls.every((c) => c !== '')).toBe(true)
    expect(results).toEqual(calls)
    expect(callIds(session.history).calls).toEqual(calls)
  })

  it.each(NO_IDS)('pauses, approves and resumes a call whose id is %s, committing the exchange', async (_what, id) => {
    const store = memorySessionStore()
    const { agent, effects } = approvalAgent(
      [{ ...refundCall({ order: 42, amount: 10 }), toolCalls: [{ id: id as string, name: 'refund', args: { order: 42, amount: 10 } }] }, 'refunded'],
      {
        sessions: store,
      },
    )
    const session = await agent.session('c1')
    const pause = await session.run('refund order 42').then(
      () => undefined,
      (e: unknown) => e,
    )
    if (!isApprovalPendingError(pause)) throw new Error(`the run did not pause: ${String(pause)}`)
    expect(pause.approval.callId).toMatch(/^call_[\w-]+_t1_1$/)
    await session.approve(pause.approval.approvalId, { approved: true, argsDigest: pause.approval.argsDigest })
    const result = await session.resume(pause.approval.approvalId)
    expect(result.text).toBe('refunded')
    expect(effects.runs).toEqual([{ args: { order: 42, amount: 10 }, key: `${pause.approval.runId}:1:${pause.approval.callId}` }])
    expect(callIds((await agent.session('c1')).history).results).toEqual([pause.approval.callId])
  })
})

describe('Agent tool calls without a name', () => {
  it('refuses a turn holding a call with an empty name as malformed-response before any of its calls runs, storing nothing', async () => {
    const sessions = memorySessionStore()
    const calls = [
      { id: 'c1', name: 'echo', args: { x: 1 } },
      { id: 'c2', name: '', args: {} },
    ]
    const { agent, runs } = echoAgent('c', sessions, [{ content: '', toolCalls: calls }, 'done'])
    const error = await (await agent.session('c-nameless')).run('go').catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'ReliabilityFailFastError', kind: 'malformed-response' })
    expect(runs).toEqual([])
    expect((await sessions.load('c-nameless')).messages).toEqual([])
  })
})

describe('Agent tool turns whose reasoning is no list of blocks', () => {
  it.each([
    ['a string', 'hmm'],
    ['a block without text', [{ signature: 's' }]],
  ])('refuses the turn (reasoning %s) as malformed-response before its calls run, storing nothing', async (_what, reasoning) => {
    const sessions = memorySessionStore()
    const usage = { inputTokens: 1, outputTokens: 1 }
    const answers = [{ content: '', toolCalls: [{ id: 'c1', name: 'echo', args: { x: 1 } }], usage, stopReason: 'tool_use', reasoning }]
    const provider = { name: 'odd-reasoning', complete: async () => answers.shift() as never }
    const runs: unknown[] = []
    const echo = tool({ name: 'echo', description: 'Echo', input: Type.Object({ x: Type.Number() }), execute: (args) => runs.push(args) })
    const session = await Agent.create({ provider, model: 'm', sessions }).tool(echo).build().session('c-reasoning')
    const error = await session.run('go').catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'ReliabilityFailFastError', kind: 'malformed-response' })
    expect(runs).toEqual([])
    expect((await sessions.load('c-reasoning')).messages).toEqual([])
  })
})
