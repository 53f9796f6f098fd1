import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Agent, isSessionCommitError, memorySessionStore, type Message, type SessionStore } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { postgresSessionStore } from '../../src/postgres.ts'
import { redisSessionStore } from '../../src/redis.ts'
import { sqliteSessionStore } from '../../src/sqlite.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-hostile-sessions-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** How a run on a conversation of `store` settles: 'ok' with the value, or the error's kind and value. */
async function outcome(store: SessionStore, options: { signal?: AbortSignal } = {}) {
  const agent = Agent.create({ provider: scripted(['the answer']), sessions: store }).build()
  const session = await agent.session('hostile')
  try {
    return { ok: await session.run('question', options) }
  } catch (error) {
    return { kind: isSessionCommitError(error) ? error.kind : `untyped: ${String(error)}`, value: isSessionCommitError(error) ? error.value : undefined }
  }
}

const base = (): SessionStore => memorySessionStore()
const withAppend = (append: SessionStore['append']): SessionStore => ({ ...base(), append })

describe('a session store that misbehaves on commit', () => {
  it.each([
    [
      'throws synchronously',
      withAppend(() => {
        throw new Error('sync boom')
      }),
    ],
    ['rejects with a non-error', withAppend(() => Promise.reject(null))],
    ['answers nothing', withAppend(async () => undefined as never)],
    ['answers a version that is no number', withAppend(async () => ({ committed: true, version: 'one' }) as never)],
    ['answers committed as a string', withAppend(async () => ({ committed: 'yes', version: 1 }) as never)],
  ])('%s: the run fails with kind session-store-failed, still carrying the accepted value', async (_name, store) => {
    expect(await outcome(store)).toEqual({ kind: 'session-store-failed', value: 'the answer' })
  })

  it('returns a thenable: it is awaited like a promise', async () => {
    const store = withAppend((() => ({ then: (resolve: (v: unknown) => void) => resolve({ committed: true, version: 1, staleBy: 0 }) })) as never)
    expect(await outcome(store)).toEqual({ ok: 'the answer' })
  })

  it('never settles: the run settles with kind session-store-failed once its signal aborts', async () => {
    const store = withAppend(() => new Promise(() => {}))
    const started = Date.now()
    const result = await outcome(store, { signal: AbortSignal.timeout(200) })
    expect(result).toEqual({ kind: 'session-store-failed', value: 'the answer' })
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('stops answering anything after the session opened: the run still settles once its signal aborts', async () => {
    const inner = memorySessionStore()
    let loads = 0
    const store: SessionStore = {
      ...inner,
      load: (id) => (++loads === 1 ? inner.load(id) : new Promise(() => {})),
      append: () => new Promise(() => {}),
    }
    const started = Date.now()
    expect(await outcome(store, { signal: AbortSignal.timeout(200) })).toEqual({ kind: 'session-store-failed', value: 'the answer' })
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('mutates the exchange it is given: it gets a frozen copy, and the result keeps the accepted exchange', async () => {
    const seen: unknown[] = []
    const inner = memorySessionStore()
    const store: SessionStore = {
      ...inner,
      append: (id, request) => {
        try {
          ;(request.exchange as Message[]).push({ role: 'user', content: 'injected' })
        } catch (error) {
          seen.push(error)
        }
        return inner.append(id, request)
      },
    }
    const agent = Agent.create({ provider: scripted(['the answer']), sessions: store }).build()
    const result = await (await agent.session('mutated')).runDetailed('question')
    expect(seen[0]).toBeInstanceOf(TypeError)
    expect(result.exchange.map((m) => m.content)).toEqual(['question', 'the answer'])
    expect((await inner.load('mutated')).messages.map((m) => m.content)).toEqual(['question', 'the answer'])
  })
})

describe('a session store that misbehaves on load', () => {
  it.each([
    ['rejects', { ...base(), load: () => Promise.reject(new Error('down')) }, /down/],
    [
      'answers messages that are no array',
      { ...base(), load: async () => ({ messages: 'x', version: 0 }) as never },
      /must resolve to \{ messages: Message\[\], version: number \}/,
    ],
    ['answers a negative version', { ...base(), load: async () => ({ messages: [], version: -1 }) }, /must resolve to/],
  ])('%s: agent.session(id) rejects with its reason', async (_name, store, message) => {
    await expect(
      Agent.create({ provider: scripted([]), sessions: store as SessionStore })
        .build()
        .session('x'),
    ).rejects.toThrow(message)
  })
})

describe('session store factories given what they cannot use', () => {
  it('refuse a missing client, path or table, naming the option', () => {
    expect(() => sqliteSessionStore(undefined as never)).toThrow(/sqliteSessionStore: path must be a non-empty string/)
    expect(() => sqliteSessionStore({ path: '' })).toThrow(/sqliteSessionStore: path must be a non-empty string/)
    expect(() => sqliteSessionStore({ path: ':memory:', ttlMs: -1 })).toThrow(RangeError)
    expect(() => redisSessionStore({} as never)).toThrow(/redisSessionStore: client must be an ioredis client/)
    expect(() => postgresSessionStore(null as never)).toThrow(/postgresSessionStore: pool must be a pg Pool or Client/)
    expect(() => postgresSessionStore({ query: async () => ({ rows: [] }) }, { table: 'x; DROP TABLE users' })).toThrow(/postgresSessionStore: table must be/)
    expect(() => memorySessionStore({ ttlMs: Number.NaN })).toThrow(/memorySessionStore: ttlMs/)
  })
})

describe('conversation ids that look dangerous', () => {
  const ids = ['__proto__', 'constructor', 'line\nbreak', "quote'; DROP TABLE rg_sessions; --", 'x'.repeat(512), '{hash}tag}', 'emoji 😀 ünï']
  for (const [name, make] of [
    ['memory', () => memorySessionStore()],
    ['sqlite', () => sqliteSessionStore({ path: join(dir, 'ids.db') })],
  ] as const) {
    it(`are plain keys of the ${name} store, each its own conversation`, async () => {
      const store = make()
      for (const [i, id] of ids.entries()) await store.append(id, { exchange: [{ role: 'user', content: `m${i}` }], expectedVersion: 0 })
      for (const [i, id] of ids.entries()) expect(await store.load(id)).toEqual({ messages: [{ role: 'user', content: `m${i}` }], version: 1 })
      await expect(store.load('x'.repeat(513))).rejects.toThrow(TypeError)
      // A store cannot hold NUL (PostgreSQL text) or a lone surrogate: refused the same way everywhere.
      await expect(store.load('\u0000nul')).rejects.toThrow(/load: id must not contain NUL/)
    })
  }
})
