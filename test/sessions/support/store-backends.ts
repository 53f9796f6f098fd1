import { existsSync, readFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import type { PGlite } from '@electric-sql/pglite'
import type { Redis } from 'ioredis'
import { memorySessionStore } from '../../../src/index.ts'
import { postgresSessionStore, type PgQueryable } from '../../../src/postgres.ts'
import { redisSessionStore } from '../../../src/redis.ts'
import { sqliteSessionStore } from '../../../src/sqlite.ts'
import type { StoreBackend } from './session-store-contract.ts'

/** The memory store: no storage to read behind it. */
export function memoryBackend(): StoreBackend {
  return { store: memorySessionStore(), withTtl: (ttlMs) => memorySessionStore({ ttlMs }) }
}

/** Every row of a SQLite session file, and the file's bytes (with its write-ahead log) as text. */
export function sqliteRaw(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true })
  try {
    const rows = [db.prepare('SELECT * FROM rg_sessions').all(), db.prepare('SELECT * FROM rg_session_exchanges').all()]
    const bytes = [path, `${path}-wal`].filter(existsSync).map((file) => readFileSync(file).toString('latin1'))
    return JSON.stringify(rows) + bytes.join('\n')
  } finally {
    db.close()
  }
}

/** A SQLite file store, its raw rows and bytes, and a way to write a newer-format record into it. */
export function sqliteBackend(path: string): StoreBackend {
  const store = sqliteSessionStore({ path })
  return {
    store,
    withTtl: (ttlMs) => sqliteSessionStore({ path, ttlMs }),
    raw: async () => sqliteRaw(path),
    plant: async (id, format) => {
      const db = new DatabaseSync(path)
      try {
        const head = db.prepare('SELECT version FROM rg_sessions WHERE id = ?').get(id) as { version: number }
        db.prepare('INSERT INTO rg_session_exchanges (id, seq, format, body) VALUES (?, ?, ?, ?)').run(id, head.version + 1, format, `{"f":${format},"x":[]}`)
        db.prepare('UPDATE rg_sessions SET version = ? WHERE id = ?').run(head.version + 1, id)
      } finally {
        db.close()
      }
    },
  }
}

/** A PostgreSQL store (a pg Pool, or PGlite) on `table` (one name, quoted as the store quotes it), its raw rows, and a newer-format record planter. */
export function postgresBackend(db: PgQueryable, table: string): StoreBackend {
  const store = postgresSessionStore(db, { table })
  return {
    store,
    withTtl: (ttlMs) => postgresSessionStore(db, { table, ttlMs }),
    raw: async () => {
      const heads = await db.query(`SELECT * FROM "${table}"`)
      const rows = await db.query(`SELECT * FROM "${table}_exchanges"`)
      return JSON.stringify([heads.rows, rows.rows])
    },
    plant: async (id, format) => {
      await db.query(`UPDATE "${table}" SET version = version + 1 WHERE id = $1`, [id])
      await db.query(`INSERT INTO "${table}_exchanges" (id, seq, format, body) SELECT id, version, $2, $3 FROM "${table}" WHERE id = $1`, [
        id,
        format,
        `{"f":${format},"x":[]}`,
      ])
    },
  }
}

/** PGlite as a {@link PgQueryable}: the same `query(text, values)`. */
export const pgliteQueryable = (db: PGlite): PgQueryable => db as unknown as PgQueryable

/** A Redis store under `prefix`, every key and value under it, and a newer-format record planter. */
export function redisBackend(client: Redis, prefix: string): StoreBackend {
  return {
    store: redisSessionStore(client, { keyPrefix: prefix }),
    withTtl: (ttlMs) => redisSessionStore(client, { keyPrefix: prefix, ttlMs }),
    raw: async () => {
      const keys = await client.keys(`${prefix}*`)
      // Conversations are lists, their approvals hashes.
      const values = await Promise.all(keys.map(async (key) => ((await client.type(key)) === 'hash' ? client.hgetall(key) : client.lrange(key, 0, -1))))
      return JSON.stringify([keys, values])
    },
    plant: async (id, format) => {
      await client.rpush(`${prefix}{${id}}`, `{"f":${format},"x":[]}`)
    },
  }
}
