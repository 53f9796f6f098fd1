import { PGlite } from '@electric-sql/pglite'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresSessionStore } from '../../src/postgres.ts'
import { exchangeOf } from './support/session-store-contract.ts'
import { START_TIMEOUT_MS } from './support/raw-stores.ts'
import { pgliteQueryable } from './support/store-backends.ts'

/** A pool that records every query: a refused table name must reach none. */
function spyPool(): { readonly queries: string[]; query(text: string): Promise<{ rows: never[] }> } {
  const queries: string[] = []
  return {
    queries,
    query: async (text: string) => {
      queries.push(text)
      return { rows: [] }
    },
  }
}

const utf8 = (s: string): number => new TextEncoder().encode(s).length
const PART = /^[\p{L}_][\p{L}\p{N}_]*$/u
/** The rule the store documents: `name` or `schema.name`, identifier parts, the name at most 53 bytes (it gets `_exchanges`), the schema 63. */
function isTableName(table: string): boolean {
  const parts = table.split('.')
  const name = parts.at(-1) as string
  if (parts.length > 2 || !PART.test(name) || utf8(name) > 53) return false
  return parts.length === 1 || (PART.test(parts[0] as string) && utf8(parts[0] as string) <= 63)
}

describe('postgresSessionStore table names', () => {
  it.each([
    ['an injection', 'x; drop table y'],
    ['a comment', 'rg_sessions--'],
    ['a double quote', 'a"b'],
    ['a single quote', "te'st"],
    ['a space', 'a b'],
    ['a hyphen', 'a-b'],
    ['a leading digit', '1abc'],
    ['an empty name', ''],
    ['two dots', 'a.b.c'],
    ['an empty schema', '.x'],
    ['an empty name after the schema', 'x.'],
    ['NUL', 'x\u0000'],
    ['a name of 54 bytes', 'x'.repeat(54)],
    ['a name of 54 bytes in two-byte letters', 'é'.repeat(27)],
    ['a schema of 64 bytes', `${'s'.repeat(64)}.t`],
  ])('refuses %s at construction with a TypeError naming the table, sending nothing', (_name, table) => {
    const pool = spyPool()
    expect(() => postgresSessionStore(pool, { table })).toThrow(TypeError)
    expect(() => postgresSessionStore(pool, { table })).toThrow(/postgresSessionStore: table must be/)
    expect(pool.queries).toEqual([])
  })

  it.each([42, null, true, ['t']])('refuses a table given as %s with a TypeError', (table) => {
    expect(() => postgresSessionStore(spyPool(), { table: table as unknown as string })).toThrow(/postgresSessionStore: table must be a string/)
  })

  it('accepts exactly the identifier names (letters, digits, _, no leading digit, 53 bytes; an optional schema), whatever the string', () => {
    const letters = fc.constantFrom('a', 'Z', '_', 'é', '名', '1', '9', '.', ';', '"', ' ', '-', '\u0000', "'", 'Ω')
    const table = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: letters, maxLength: 60 }))
    fc.assert(
      fc.property(table, (candidate) => {
        const pool = spyPool()
        let error: unknown
        try {
          postgresSessionStore(pool, { table: candidate })
        } catch (e) {
          error = e
        }
        if (isTableName(candidate)) expect(error).toBeUndefined()
        else expect(error).toBeInstanceOf(TypeError)
        expect(pool.queries).toEqual([])
      }),
      { numRuns: 500 },
    )
  })
})

describe('postgresSessionStore table names on PGlite', () => {
  let db: PGlite | undefined
  beforeAll(async () => {
    db = await PGlite.create()
    await db.query('CREATE SCHEMA tenant_a')
  }, START_TIMEOUT_MS)
  afterAll(() => db?.close())
  const pg = () => pgliteQueryable(db as PGlite)

  it.each(['user', 'order', 'select', 'Conversations', 'tenant_a.user', 'ünïcødé_名', 'x'.repeat(53)])(
    'stores and loads a conversation in table %s (quoted in every statement)',
    async (table) => {
      const store = postgresSessionStore(pg(), { table })
      await store.append('c', { exchange: exchangeOf('a'), expectedVersion: 0 })
      await store.append('c', { exchange: exchangeOf('b'), expectedVersion: 1, onConflict: 'fail' })
      expect(await store.load('c')).toEqual({ messages: [...exchangeOf('a'), ...exchangeOf('b')], version: 2 })
      await store.delete('c')
      expect(await store.load('c')).toEqual({ messages: [], version: 0 })
    },
  )

  it('keeps the case of a name: Conversations and conversations are two tables', async () => {
    const upper = postgresSessionStore(pg(), { table: 'Conversations' })
    const lower = postgresSessionStore(pg(), { table: 'conversations' })
    await upper.append('same', { exchange: exchangeOf('upper'), expectedVersion: 0 })
    expect(await lower.load('same')).toEqual({ messages: [], version: 0 })
    expect((await (db as PGlite).query('SELECT id FROM "Conversations"')).rows).toContainEqual({ id: 'same' })
  })

  it('creates the tables named, in the schema named', async () => {
    const store = postgresSessionStore(pg(), { table: 'tenant_a.user' })
    await store.append('in-schema', { exchange: exchangeOf('s'), expectedVersion: 0 })
    const found = await (db as PGlite).query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'tenant_a' ORDER BY table_name",
    )
    // The conversations, their exchanges, and the tool-call approvals they are paused on.
    expect(found.rows.map((row) => row.table_name)).toEqual(['user', 'user_approvals', 'user_exchanges'])
  })
})
