import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Agent, memorySessionStore, type SessionStore } from '../../src/index.ts'
import { postgresSessionStore } from '../../src/postgres.ts'
import { scripted } from '../../src/providers/index.ts'
import { redisSessionStore } from '../../src/redis.ts'
import { MAX_SESSION_ID_LENGTH } from '../../src/sessions/session-id.ts'
import { sqliteSessionStore } from '../../src/sqlite.ts'
import type { RedisLike } from '../../src/store/redis/redis-like.ts'
import { exchangeOf } from './support/session-store-contract.ts'
import { eachRawStore } from './support/raw-stores.ts'

/** Ids no store can hold, and the words the refusal names. */
const HOSTILE: readonly (readonly [string, unknown, RegExp])[] = [
  ['an empty string', '', /id must not be empty/],
  ['NUL alone', '\u0000', /id must not contain NUL/],
  ['NUL inside', 'customer\u000042', /id must not contain NUL/],
  ['a lone high surrogate', 'a\ud800', /id must not contain a lone surrogate/],
  ['a lone low surrogate', '\udc00b', /id must not contain a lone surrogate/],
  ['a reversed surrogate pair', '\ude00\ud83d', /id must not contain a lone surrogate/],
  [`${MAX_SESSION_ID_LENGTH + 1} characters`, 'x'.repeat(MAX_SESSION_ID_LENGTH + 1), /id must be at most 512 characters, got 513/],
  ['a number', 42, /id must be a string, got 42/],
  ['null', null, /id must be a string, got null/],
  ['undefined', undefined, /id must be a string, got undefined/],
  ['an object', { toString: () => 'x' }, /id must be a string, got object/],
  ['an array', ['a'], /id must be a string, got an array/],
]

/** Ids every store holds, each its own conversation. */
const ODD_BUT_FINE: readonly string[] = [
  '__proto__',
  'constructor',
  'x'.repeat(MAX_SESSION_ID_LENGTH),
  '😀'.repeat(MAX_SESSION_ID_LENGTH / 2),
  "quote'; DROP TABLE rg_sessions; --",
  '{hash}tag}',
  'line\nbreak\ttab',
  '\u007f\u0001',
]

/** Every call of a store with `id`, each expected to reject with a TypeError matching `message`. */
async function expectRefused(store: SessionStore, id: unknown, message: RegExp): Promise<void> {
  const calls: readonly (readonly [string, () => Promise<unknown>])[] = [
    ['load', () => store.load(id as string)],
    ['append', () => store.append(id as string, { exchange: exchangeOf('x'), expectedVersion: 0 })],
    ['delete', () => store.delete(id as string)],
  ]
  for (const [method, call] of calls) {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error, method).toBeInstanceOf(TypeError)
    expect((error as Error).message, method).toMatch(new RegExp(`\\.${method}: ${message.source}`))
  }
}

/** A Redis client and a pg pool that record every call: a refused id must reach neither. */
function spies(): { readonly calls: string[]; readonly client: RedisLike; readonly pool: { query(text: string): Promise<never> } } {
  const calls: string[] = []
  const record = (name: string) => async (): Promise<never> => {
    calls.push(name)
    throw new Error(`${name} reached`)
  }
  return { calls, client: { evalsha: record('evalsha'), eval: record('eval') } as unknown as RedisLike, pool: { query: record('query') } }
}

describe('conversation ids a store cannot hold', () => {
  it.each(HOSTILE)('%s: every store refuses it in load, append and delete with a TypeError, before any I/O', async (_name, id, message) => {
    const { calls, client, pool } = spies()
    for (const store of [memorySessionStore(), sqliteSessionStore({ path: ':memory:' }), redisSessionStore(client), postgresSessionStore(pool)]) {
      await expectRefused(store, id, message)
    }
    expect(calls).toEqual([])
  })

  it('agent.session(id) rejects such an id with the TypeError, whatever the store', async () => {
    const { client } = spies()
    for (const sessions of [memorySessionStore(), redisSessionStore(client)]) {
      const agent = Agent.create({ provider: scripted([]), sessions }).build()
      await expect(agent.session('customer\u000042')).rejects.toThrow(/id must not contain NUL/)
      await expect(agent.session('a\ud800')).rejects.toBeInstanceOf(TypeError)
    }
  })

  it('accepts exactly the strings of 1 to 512 characters without NUL or a lone surrogate (memory and SQLite alike)', async () => {
    const memory = memorySessionStore()
    const sqlite = sqliteSessionStore({ path: ':memory:' })
    const id = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.string({ unit: 'binary', minLength: 510, maxLength: 514 }),
    )
    await fc.assert(
      fc.asyncProperty(id, async (candidate) => {
        const holdable = candidate.length >= 1 && candidate.length <= MAX_SESSION_ID_LENGTH && !candidate.includes('\u0000') && !/\p{Cs}/u.test(candidate)
        for (const store of [memory, sqlite]) {
          const loaded = await store.load(candidate).then(
            (conversation) => conversation,
            (error: unknown) => error,
          )
          if (holdable) expect(loaded).toEqual({ messages: [], version: 0 })
          else expect(loaded).toBeInstanceOf(TypeError)
        }
      }),
      { numRuns: 300 },
    )
    sqlite.close()
  })
})

eachRawStore('Conversation ids at the edge of what a store holds', (backend) => {
  it('are plain keys, each its own conversation', async () => {
    const { store } = backend()
    for (const [i, id] of ODD_BUT_FINE.entries()) {
      await store.delete(id)
      await store.append(id, { exchange: [{ role: 'user', content: `m${i}` }], expectedVersion: 0 })
    }
    for (const [i, id] of ODD_BUT_FINE.entries()) expect(await store.load(id)).toEqual({ messages: [{ role: 'user', content: `m${i}` }], version: 1 })
  })

  it.each(HOSTILE)('%s: refused in load, append and delete with a TypeError, not a driver error', async (_name, id, message) => {
    await expectRefused(backend().store, id, message)
  })
})
