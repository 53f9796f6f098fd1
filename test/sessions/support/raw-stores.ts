import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe } from 'vitest'
import type { SessionStore } from '../../../src/index.ts'
import { postgresSessionStore } from '../../../src/postgres.ts'
import { redisSessionStore } from '../../../src/redis.ts'
import { sqliteSessionStore } from '../../../src/sqlite.ts'
import { useRedis } from '../../redis/support/use-redis.ts'
import { describeWith, redisServer } from '../../support/requirements.ts'
import { pgliteQueryable } from './store-backends.ts'

/** A store whose backing data a test writes behind its back (what an operator's edit or a bad migration does). */
export interface RawStore {
  readonly store: SessionStore
  /** Replaces what is stored for `id` with these exchange records (stored text), at `version` (default: their count). */
  write(id: string, bodies: readonly string[], version?: number | string): Promise<void>
  /** SQL stores only: deletes the conversation's row (its version), leaving its exchanges. */
  readonly dropHead?: (id: string) => Promise<void>
  /** Redis only: makes the conversation's key a string (a key of another type under the store's prefix). */
  readonly writeString?: (id: string, value: string) => Promise<void>
}

/** Starting PGlite (a WebAssembly build) on a busy machine takes tens of seconds. */
export const START_TIMEOUT_MS = 120_000

function sqliteRaw(path: string): RawStore {
  return {
    store: sqliteSessionStore({ path }),
    write: async (id, bodies, version = bodies.length) => {
      const db = new DatabaseSync(path)
      try {
        db.prepare('DELETE FROM rg_session_exchanges WHERE id = ?').run(id)
        db.prepare('INSERT OR REPLACE INTO rg_sessions (id, version, expires_at) VALUES (?, ?, NULL)').run(id, version)
        const insert = db.prepare('INSERT INTO rg_session_exchanges (id, seq, format, body) VALUES (?, ?, 1, ?)')
        for (const [i, body] of bodies.entries()) insert.run(id, i + 1, body)
      } finally {
        db.close()
      }
    },
    dropHead: async (id) => {
      const db = new DatabaseSync(path)
      try {
        db.prepare('DELETE FROM rg_sessions WHERE id = ?').run(id)
      } finally {
        db.close()
      }
    },
  }
}

async function pgliteRaw(db: PGlite, table: string): Promise<RawStore> {
  const store = postgresSessionStore(pgliteQueryable(db), { table })
  // The first call creates the tables.
  await store.load('set-up')
  return {
    store,
    write: async (id, bodies, version = bodies.length) => {
      await db.query(`DELETE FROM "${table}_exchanges" WHERE id = $1`, [id])
      await db.query(`INSERT INTO "${table}" (id, version) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET version = $2`, [id, version])
      for (const [i, body] of bodies.entries())
        await db.query(`INSERT INTO "${table}_exchanges" (id, seq, format, body) VALUES ($1, $2, 1, $3)`, [id, i + 1, body])
    },
    dropHead: async (id) => {
      await db.query(`DELETE FROM "${table}" WHERE id = $1`, [id])
    },
  }
}

/** The backend made in `beforeAll` (and closed in `afterAll`), read by each test. */
function lazy(make: () => Promise<RawStore & { close?: () => Promise<void> | void }>): () => RawStore {
  let backend: (RawStore & { close?: () => Promise<void> | void }) | undefined
  beforeAll(async () => {
    backend = await make()
  }, START_TIMEOUT_MS)
  afterAll(async () => {
    await backend?.close?.()
  })
  return () => {
    if (backend === undefined) throw new Error('the store is read before beforeAll ran')
    return backend
  }
}

/**
 * Registers `body` once per store with backing data a test can write: SQLite (node:sqlite, a
 * temporary file), PostgreSQL (PGlite), Redis (a real redis-server; skipped without one, failed
 * under CI). Call at a file's top level.
 */
export function eachRawStore(title: string, body: (backend: () => RawStore, kind: 'sqlite' | 'postgres' | 'redis') => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'rg-raw-sessions-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  describe(`${title}: sqliteSessionStore`, () => {
    body(
      lazy(async () => sqliteRaw(join(dir, 'raw.db'))),
      'sqlite',
    )
  })
  describe(`${title}: postgresSessionStore on PGlite`, () => {
    body(
      lazy(async () => {
        const db = await PGlite.create()
        return { ...(await pgliteRaw(db, 'raw_sessions')), close: () => db.close() }
      }),
      'postgres',
    )
  })
  const redis = useRedis()
  describeWith(redisServer)(`${title}: redisSessionStore`, () => {
    body(
      lazy(async () => ({
        store: redisSessionStore(redis.client, { keyPrefix: 'raw:' }),
        write: async (id, bodies) => {
          await redis.client.del(`raw:{${id}}`)
          if (bodies.length > 0) await redis.client.rpush(`raw:{${id}}`, ...bodies)
        },
        writeString: async (id, value) => {
          await redis.client.set(`raw:{${id}}`, value)
        },
      })),
      'redis',
    )
  })
}
