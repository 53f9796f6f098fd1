import { describe, expect, it, vi } from 'vitest'
import { Agent, memorySessionStore, type SessionStore } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { crashingEngine, stepNames } from './support/crashing-engine.ts'

/** A memory session store whose appends are counted. */
function countedStore() {
  const store = memorySessionStore()
  const append = vi.fn(store.append.bind(store))
  const counted: SessionStore = { load: store.load.bind(store), delete: store.delete.bind(store), append }
  return { store: counted, append }
}

/** One exchange of a fresh agent (a fresh session opened on `store`), on the engine's port. */
async function exchange(store: SessionStore, port: ReturnType<typeof crashingEngine>['port'], answer = 'Refunded.') {
  const agent = Agent.create({ provider: scripted([answer]), sessions: store }).build()
  return (await agent.session('customer-1')).runDetailed('refund order 42', { durable: port })
}

describe('A durable run’s session commit', () => {
  it('journals the version the run was computed on, then the commit', async () => {
    const journal: string[] = []
    const { store } = countedStore()
    const done = await exchange(store, crashingEngine('r', journal).port)
    expect(stepNames(journal)).toEqual(['attempt:1:1', 'session-base', 'session-commit'])
    expect(done.session).toMatchObject({ version: 1, basedOn: 0, staleBy: 0 })
  })

  it('commits as a run without a port does when your store answers more than its outcome (a __proto__ key among it)', async () => {
    const { store } = countedStore()
    const answering: SessionStore = {
      ...store,
      append: async (id, request) => ({ ...(await store.append(id, request)), ...(JSON.parse('{"__proto__": {"admin": true}, "shard": 3}') as object) }),
    }
    const journal: string[] = []
    const done = await exchange(answering, crashingEngine('r', journal).port)
    expect(done.session).toMatchObject({ version: 1, basedOn: 0, staleBy: 0 })
    expect(stepNames(journal)).toEqual(['attempt:1:1', 'session-base', 'session-commit'])
    expect(JSON.parse(journal[2] as string)).toMatchObject({ ok: true, value: { committed: true, version: 1, staleBy: 0 } })
    expect((await store.load('customer-1')).messages).toHaveLength(2)
  })

  it('stores the exchange once when the process dies after the append and before the commit is journaled', async () => {
    const journal: string[] = []
    const { store, append } = countedStore()
    // Position 2 is session-commit: the append lands, the journal never hears of it.
    await expect(exchange(store, crashingEngine('r', journal, 2).port)).rejects.toThrow()
    expect(stepNames(journal)).toEqual(['attempt:1:1', 'session-base'])
    expect((await store.load('customer-1')).version).toBe(1)
    // The resumed run reopens the session on version 1, which already holds its exchange.
    const resumed = await exchange(store, crashingEngine('r', journal).port)
    expect(append).toHaveBeenCalledTimes(1)
    const stored = await store.load('customer-1')
    expect(stored.version).toBe(1)
    expect(stored.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'refund order 42'],
      ['assistant', 'Refunded.'],
    ])
    expect(resumed.session?.version).toBe(1)
    expect(stepNames(journal)).toEqual(['attempt:1:1', 'session-base', 'session-commit'])
  })

  it('stores the exchange once when the process dies before the base is journaled', async () => {
    const journal: string[] = []
    const { store, append } = countedStore()
    await expect(exchange(store, crashingEngine('r', journal, 1).port)).rejects.toThrow()
    expect(append).not.toHaveBeenCalled()
    await exchange(store, crashingEngine('r', journal).port)
    expect(append).toHaveBeenCalledTimes(1)
    expect((await store.load('customer-1')).version).toBe(1)
  })

  it('appends a later run whose exchange repeats the last one word for word', async () => {
    const { store, append } = countedStore()
    await exchange(store, crashingEngine('first', []).port)
    const second = await exchange(store, crashingEngine('second', []).port)
    expect(append).toHaveBeenCalledTimes(2)
    expect(second.session).toMatchObject({ version: 2, basedOn: 1 })
    expect((await store.load('customer-1')).messages).toHaveLength(4)
  })

  it('appends after another run’s exchange that landed between the killed commit’s base and its resume', async () => {
    const journal: string[] = []
    const { store, append } = countedStore()
    await expect(exchange(store, crashingEngine('r', journal, 1).port)).rejects.toThrow()
    await exchange(store, crashingEngine('other', []).port, 'Other answer.')
    await exchange(store, crashingEngine('r', journal).port)
    expect(append).toHaveBeenCalledTimes(2)
    expect((await store.load('customer-1')).messages.map((m) => m.content)).toEqual(['refund order 42', 'Other answer.', 'refund order 42', 'Refunded.'])
  })

  it('stores the exchange once when another run committed after the killed commit’s append and before its resume', async () => {
    const journal: string[] = []
    const { store, append } = countedStore()
    // The append lands, the journal never hears of it; another run then commits: the exchange is no longer the last one.
    await expect(exchange(store, crashingEngine('r', journal, 2).port)).rejects.toThrow()
    await exchange(store, crashingEngine('other', []).port, 'Other answer.')
    const resumed = await exchange(store, crashingEngine('r', journal).port)
    expect(append).toHaveBeenCalledTimes(2)
    expect((await store.load('customer-1')).messages.map((m) => m.content)).toEqual(['refund order 42', 'Refunded.', 'refund order 42', 'Other answer.'])
    // Where the exchange landed: version 1, on the journaled base 0, with nothing committed in between.
    expect(resumed.session).toMatchObject({ version: 1, staleBy: 0 })
    expect(stepNames(journal)).toEqual(['attempt:1:1', 'session-base', 'session-commit'])
  })

  it('journals no failure of a store that failed to append: the run fails, and a resume commits the exchange once', async () => {
    const { store, append } = countedStore()
    let failures = 1
    const flaky: SessionStore = {
      ...store,
      append: async (id, request) => {
        if (failures-- > 0) throw new Error('connection reset')
        return store.append(id, request)
      },
    }
    const journal: string[] = []
    await expect(exchange(flaky, crashingEngine('r', journal).port)).rejects.toMatchObject({ message: expect.stringContaining('connection reset') })
    // The failed append is no outcome of the step: nothing about it is journaled, nothing was stored.
    expect(stepNames(journal)).toEqual(['attempt:1:1', 'session-base'])
    expect((await store.load('customer-1')).version).toBe(0)
    const resumed = await exchange(flaky, crashingEngine('r', journal).port)
    expect(resumed.session).toMatchObject({ version: 1, basedOn: 0 })
    expect(append).toHaveBeenCalledTimes(1)
    expect((await store.load('customer-1')).messages.map((m) => m.content)).toEqual(['refund order 42', 'Refunded.'])
    expect(stepNames(journal)).toEqual(['attempt:1:1', 'session-base', 'session-commit'])
  })
})
