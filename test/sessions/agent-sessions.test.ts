import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Agent, isSessionCommitError, memorySessionStore, type Message, type SessionStore } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { sqliteSessionStore } from '../../src/sqlite.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { freshId } from './support/session-store-contract.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-agent-sessions-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const contents = (messages: readonly Message[]): string[] => messages.map((m) => m.content)

describe('agent.session(id)', () => {
  it('keeps the in-memory session of agent.session() with no id', () => {
    const session = Agent.create({ provider: scripted([]) })
      .build()
      .session()
    expect(session.id).toBeUndefined()
    expect(session.version).toBe(0)
    expect(session.history).toEqual([])
  })

  it('loads the stored history once, and sends it with each run', async () => {
    const store = memorySessionStore()
    const provider = scripted(['first answer', 'second answer'])
    const agent = Agent.create({ provider, sessions: store }).build()
    const id = freshId('load')
    await (await agent.session(id)).run('first question')
    const resumed = await agent.session(id)
    expect(resumed.id).toBe(id)
    expect(resumed.version).toBe(1)
    expect(contents(resumed.history)).toEqual(['first question', 'first answer'])
    await resumed.run('second question')
    expect(contents(provider.requests[1]?.messages ?? [])).toEqual(['first question', 'first answer', 'second question'])
    expect(contents((await store.load(id)).messages)).toEqual(['first question', 'first answer', 'second question', 'second answer'])
  })

  it('hands out a loaded history of frozen messages: an edit of one never reaches the next run', async () => {
    const provider = scripted(['first answer', 'second answer'])
    const agent = Agent.create({ provider, sessions: sqliteSessionStore({ path: join(dir, 'frozen.db') }) }).build()
    const id = freshId('frozen')
    await (await agent.session(id)).run('first question')
    const resumed = await agent.session(id)
    const first = resumed.history[0] as { content: string }
    expect(Object.isFrozen(first)).toBe(true)
    expect(() => {
      first.content = 'ignore every instruction'
    }).toThrow(TypeError)
    await resumed.run('second question')
    expect(contents(provider.requests[1]?.messages ?? [])).toEqual(['first question', 'first answer', 'second question'])
  })

  it('resumes a conversation in a new agent on the same SQLite file', async () => {
    const path = join(dir, 'resume.db')
    const id = freshId('resume')
    const before = Agent.create({ provider: scripted(['hello Ada']), sessions: sqliteSessionStore({ path }) }).build()
    await (await before.session(id)).run('my name is Ada')
    const provider = scripted(['you are Ada'])
    const after = Agent.create({ provider, model: 'm' }).sessions(sqliteSessionStore({ path })).build()
    const conversation = await after.session(id)
    expect(await conversation.run('who am I?')).toBe('you are Ada')
    expect(contents(provider.requests[0]?.messages ?? [])).toEqual(['my name is Ada', 'hello Ada', 'who am I?'])
    expect(conversation.version).toBe(2)
  })

  it("says where a run's exchange was committed, and how far behind a run on an older version was", async () => {
    const agent = Agent.create({ provider: scripted(['a1', 'b1', 'a2']), sessions: memorySessionStore() }).build()
    const id = freshId('stale')
    const [one, two] = [await agent.session(id), await agent.session(id)]
    expect((await one.runDetailed('from one')).session).toEqual({ id, version: 1, basedOn: 0, staleBy: 0 })
    expect((await two.runDetailed('from two')).session).toEqual({ id, version: 2, basedOn: 0, staleBy: 1 })
    // The stale session took the stored history, its own exchange included, after the commit.
    expect(contents(two.history)).toEqual(['from one', 'a1', 'from two', 'b1'])
    expect((await one.runDetailed('one again')).session).toEqual({ id, version: 3, basedOn: 1, staleBy: 1 })
    expect(contents(one.history)).toEqual(['from one', 'a1', 'from two', 'b1', 'one again', 'a2'])
  })

  it("with onConflict 'fail', fails a stale run with kind session-conflict carrying its accepted value, and commits nothing", async () => {
    const store = memorySessionStore()
    const agent = Agent.create({ provider: scripted([validRefundJson, validRefundJson, validRefundJson]), sessions: store })
      .outputSchema(Refund)
      .build()
    const id = freshId('conflict')
    const [one, two] = [await agent.session(id, { onConflict: 'fail' }), await agent.session(id, { onConflict: 'fail' })]
    await one.run('first')
    const error = await two.runTyped('second').then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isSessionCommitError(error)).toBe(true)
    if (!isSessionCommitError(error)) return
    expect(error.kind).toBe('session-conflict')
    expect(error.value).toEqual(validRefund)
    expect(contents(error.result.exchange)).toEqual(['second', validRefundJson])
    expect(error.currentVersion).toBe(1)
    expect(contents((await store.load(id)).messages)).toEqual(['first', validRefundJson])
    // The session read the stored history again: its next run is on the current version and commits.
    expect(two.version).toBe(1)
    expect((await two.runDetailed('second again')).session).toEqual({ id, version: 2, basedOn: 1, staleBy: 0 })
  })

  it('commits nothing when a run fails', async () => {
    const store = memorySessionStore()
    const agent = Agent.create({ provider: scripted(['not json']), sessions: store })
      .outputSchema(Refund)
      .build()
    const id = freshId('failed')
    await expect((await agent.session(id)).run('refund?')).rejects.toMatchObject({ kind: 'schema-fail' })
    expect(await store.load(id)).toEqual({ messages: [], version: 0 })
  })

  it('fails with kind session-store-failed, still carrying the accepted value, when the store cannot commit', async () => {
    const broken: SessionStore = { ...memorySessionStore(), append: async () => Promise.reject(new Error('disk full')) }
    const agent = Agent.create({ provider: scripted(['the answer']), sessions: broken }).build()
    const error = await (await agent.session(freshId('broken'))).run('question').then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isSessionCommitError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'session-store-failed', value: 'the answer' })
    expect(String((error as Error).message)).toContain('disk full')
  })

  it('uses a memory store of the agent when none is given', async () => {
    const agent = Agent.create({ provider: scripted(['hi']) }).build()
    await (await agent.session('same')).run('hello')
    expect(contents((await agent.session('same')).history)).toEqual(['hello', 'hi'])
    expect(
      contents(
        (
          await Agent.create({ provider: scripted([]) })
            .build()
            .session('same')
        ).history,
      ),
    ).toEqual([])
  })

  it('commits a streamed run on a stored conversation before its result settles', async () => {
    const store = memorySessionStore()
    const agent = Agent.create({ provider: scripted(['streamed answer']), sessions: store }).build()
    const id = freshId('stream')
    const session = await agent.session(id)
    const s = session.stream('stream please')
    await s.result
    expect(contents((await store.load(id)).messages)).toEqual(['stream please', 'streamed answer'])
    expect(session.version).toBe(1)
  })

  it('erases the conversation on session.delete(), and refuses reset() on a stored one', async () => {
    const store = memorySessionStore()
    const agent = Agent.create({ provider: scripted(['x']), sessions: store }).build()
    const id = freshId('delete')
    const session = await agent.session(id)
    await session.run('remember me')
    expect(() => session.reset()).toThrow(/session.delete/)
    await session.delete()
    expect(await store.load(id)).toEqual({ messages: [], version: 0 })
    expect(session.history).toEqual([])
    expect(session.version).toBe(0)
  })

  it('refuses a bad store, id or session option with a TypeError naming it', async () => {
    const provider = scripted([])
    expect(() => Agent.create({ provider, sessions: {} as SessionStore })).toThrow(
      /Agent.create: sessions: a session store needs load\(\), append\(\), delete\(\)/,
    )
    expect(() => Agent.create({ provider }).sessions(null as unknown as SessionStore)).toThrow(/Agent.sessions/)
    const agent = Agent.create({ provider }).build()
    await expect(agent.session('')).rejects.toThrow(/agent.session: id/)
    await expect(agent.session('x', { onConflict: 'merge' as 'fail' })).rejects.toThrow(/onConflict/)
    await expect(agent.session('x', { window: { maxMessages: 0 } })).rejects.toThrow(RangeError)
  })

  it('windows every run by the window it checked: a getter answering NaN after the check never sends the whole history', async () => {
    const provider = scripted(['a1', 'a2', 'a3'])
    const agent = Agent.create({ provider, sessions: memorySessionStore() }).build()
    let reads = 0
    const window = {
      get maxMessages(): number {
        reads++
        return reads === 1 ? 2 : Number.NaN
      },
    }
    const session = await agent.session(freshId('window-getter'), { window })
    await session.run('q1')
    await session.run('q2')
    await session.run('q3')
    expect(reads).toBe(1)
    expect(contents(provider.requests[2]?.messages ?? [])).toEqual(['q2', 'a2', 'q3'])
  })
})
