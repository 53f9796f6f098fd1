import { isRecord } from '../model/is-record.ts'
import { typeName } from '../model/describe-value.ts'
import { checkAppend, checkFormat, checkId, checkTtl, decodeExchange, encodeExchange, SESSION_FORMAT } from './exchange-format.ts'
import { type AppendOutcome, type AppendRequest, type SessionStore, type StoredConversation, staleBy } from './session-store.ts'

/**
 * The part of a PostgreSQL client the store uses: one parameterised query. A `pg` `Pool` or
 * `Client` fits as is, and so does PGlite.
 */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ readonly rows: readonly unknown[] }>
}

/** Options of {@link postgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  /** The conversations table (`[schema.]name`); exchanges go in `<table>_exchanges`. Both are created if missing. @default 'rg_sessions' */
  readonly table?: string
  /** A conversation not appended to for this long is erased. @default no expiry */
  readonly ttlMs?: number
}

const TABLE = /^(?:[a-z_][a-z0-9_]{0,40}\.)?[a-z_][a-z0-9_]{0,40}$/

/**
 * Conversations in PostgreSQL over `pg` (an optional peer dependency) or any client with `query`.
 * Each commit is ONE statement (a version-checked upsert of the conversation row feeding the insert
 * of the exchange), so it is atomic without a transaction held across round trips, and concurrent
 * commits to one conversation queue on its row lock.
 *
 * @example
 * import pg from 'pg'
 * import { postgresSessionStore } from 'reliability-gate/postgres'
 * const sessions = postgresSessionStore(new pg.Pool(), { table: 'conversations' })
 */
export function postgresSessionStore(pool: PgQueryable, options: PostgresSessionStoreOptions = {}): SessionStore {
  if (!isRecord(pool) || typeof pool.query !== 'function')
    throw new TypeError(`postgresSessionStore: pool must be a pg Pool or Client (with query()), got ${typeName(pool)}`)
  if (!isRecord(options)) throw new TypeError(`postgresSessionStore: options must be an object, got ${typeName(options)}`)
  const table = options.table ?? 'rg_sessions'
  if (typeof table !== 'string' || !TABLE.test(table)) {
    throw new TypeError(`postgresSessionStore: table must be a lower-case SQL name ([schema.]name: letters, digits, _), got ${typeName(table)}`)
  }
  const ttlMs = checkTtl(options.ttlMs, 'postgresSessionStore')
  const rows = `${table}_exchanges`
  const q = async <R>(text: string, values: unknown[]): Promise<R[]> => (await pool.query(text, values)).rows as R[]

  let ready: Promise<void> | undefined
  const setUp = async (): Promise<void> => {
    const create = `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, version integer NOT NULL, expires_at bigint);
      CREATE TABLE IF NOT EXISTS ${rows} (id text NOT NULL, seq integer NOT NULL, format integer NOT NULL, body text NOT NULL, PRIMARY KEY (id, seq))`
    for (const statement of create.split(';')) {
      try {
        await pool.query(statement)
      } catch (error) {
        // Two processes creating the table at once: the loser sees a duplicate; the table is there.
        if (!/already exists|duplicate key/i.test(String((error as Error)?.message))) throw error
      }
    }
  }
  const schema = (): Promise<void> => {
    ready ??= setUp().catch((error: unknown) => {
      ready = undefined
      throw error
    })
    return ready
  }
  /** Erases the conversation when it expired; one statement, so a commit racing it sees it whole or gone. */
  const purgeExpired = async (id: string): Promise<void> => {
    if (ttlMs === undefined) return
    await q(`WITH gone AS (DELETE FROM ${table} WHERE id = $1 AND expires_at <= $2 RETURNING id) DELETE FROM ${rows} WHERE id IN (SELECT id FROM gone)`, [
      id,
      Date.now(),
    ])
  }
  const expiry = (): number | null => (ttlMs === undefined ? null : Date.now() + ttlMs)

  return {
    async load(id: string): Promise<StoredConversation> {
      checkId(id, 'postgresSessionStore.load')
      await schema()
      await purgeExpired(id)
      // One statement: the version and the exchanges come from one snapshot.
      const found = await q<{ version: number | null; format: number | null; body: string | null }>(
        `SELECT h.version, e.format, e.body FROM ${table} h LEFT JOIN ${rows} e ON e.id = h.id AND e.seq <= h.version WHERE h.id = $1 ORDER BY e.seq`,
        [id],
      )
      if (found.length === 0) return { messages: [], version: 0 }
      const messages = found.flatMap((row) => {
        if (row.body === null) return []
        checkFormat(id, Number(row.format))
        return decodeExchange(id, row.body)
      })
      return { messages, version: Number(found[0]?.version ?? 0) }
    },
    async append(id: string, request: AppendRequest): Promise<AppendOutcome> {
      const { exchange, expected, fail } = checkAppend(id, request, 'postgresSessionStore.append')
      await schema()
      await purgeExpired(id)
      const body = encodeExchange(exchange)
      // 'fail' on a conversation the run saw: bump the version only if it is still the expected one
      // (the row lock re-checks it against the latest commit); otherwise an upsert.
      const head =
        fail && expected > 0
          ? `UPDATE ${table} SET version = version + 1, expires_at = $3 WHERE id = $1 AND version = $2 RETURNING version`
          : `INSERT INTO ${table} AS cur (id, version, expires_at) VALUES ($1, 1, $3) ON CONFLICT (id) DO UPDATE SET version = cur.version + 1, expires_at = $3
             WHERE ${fail ? 'cur.version = $2' : '$2::integer IS NOT NULL'} RETURNING version`
      const written = await q<{ version: number }>(
        `WITH head AS (${head}) INSERT INTO ${rows} (id, seq, format, body) SELECT $1, version, $4, $5 FROM head RETURNING seq AS version`,
        [id, expected, expiry(), SESSION_FORMAT, body],
      )
      const committed = written[0]
      if (committed !== undefined) {
        const version = Number(committed.version)
        return { committed: true, version, staleBy: staleBy(version - 1, expected) }
      }
      const now = await q<{ version: number }>(`SELECT version FROM ${table} WHERE id = $1`, [id])
      return { committed: false, version: Number(now[0]?.version ?? 0) }
    },
    async delete(id: string): Promise<void> {
      checkId(id, 'postgresSessionStore.delete')
      await schema()
      await q(`WITH gone AS (DELETE FROM ${table} WHERE id = $1) DELETE FROM ${rows} WHERE id = $1`, [id])
    },
  }
}
