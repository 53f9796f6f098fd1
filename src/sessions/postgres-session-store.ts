import { isRecord } from '../model/is-record.ts'
import { typeName } from '../model/describe-value.ts'
import { optionsContract } from '../model/options-contract.ts'
import { checkAppend, encodeExchange, readConversation, SESSION_FORMAT, versionMismatch } from './exchange-format.ts'
import { checkSessionId } from './session-id.ts'
import { type ApprovalSlots, checkSlotIds, isRevision } from './approval-slots.ts'
import { ttlOption } from './session-ttl.ts'
import { identifierProblem, MAX_IDENTIFIER_BYTES, quoted } from './sql-identifier.ts'
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
  /**
   * The conversations table, `name` or `schema.name`: each part letters, digits and `_`, not starting
   * with a digit; the name at most 53 bytes, as exchanges go in `<name>_exchanges` (63 bytes at most).
   * Both tables are created if missing. Names are always quoted, so a reserved word (`user`) works and
   * the case is kept. @default 'rg_sessions'
   */
  readonly table?: string
  /** A conversation not appended to for this long is erased (whole ms, at most 100 years). @default no expiry */
  readonly ttlMs?: number
}

const EXCHANGES = '_exchanges'

/** What is wrong with `table` as `name` or `schema.name`, or `undefined`. */
function tableProblem(table: unknown): string | undefined {
  if (typeof table !== 'string') return 'a string'
  const parts = table.split('.')
  const name = parts.at(-1) as string
  if (parts.length > 2) return 'name or schema.name (one dot at most)'
  if (parts.length === 2) {
    const schema = identifierProblem(parts[0] as string)
    if (schema !== undefined) return `schema.name, the schema ${schema}`
  }
  const problem = identifierProblem(name, MAX_IDENTIFIER_BYTES - EXCHANGES.length)
  return problem === undefined ? undefined : `a table name of ${problem}${problem.startsWith('at most') ? ` (it gets "${EXCHANGES}" appended)` : ''}`
}

/** The options {@link postgresSessionStore} takes, checked once at construction. */
export const POSTGRES_SESSION_STORE = optionsContract<PostgresSessionStoreOptions>('postgresSessionStore', {
  table: (value) => tableProblem(value),
  ttlMs: ttlOption,
})

/** The quoted SQL names of the two tables of `table` (`"schema"."name"`, `"schema"."name_exchanges"`). */
function tableNames(table: string): { readonly heads: string; readonly rows: string; readonly approvals: string } {
  const parts = table.split('.')
  const name = parts.pop() as string
  const schema = parts.map((part) => `${quoted(part)}.`).join('')
  // `_approvals` is as long as `_exchanges`: the name check covers both.
  return { heads: `${schema}${quoted(name)}`, rows: `${schema}${quoted(name + EXCHANGES)}`, approvals: `${schema}${quoted(`${name}_approvals`)}` }
}

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
  const { table: given = 'rg_sessions', ttlMs } = POSTGRES_SESSION_STORE.check(options)
  const { heads: table, rows, approvals } = tableNames(given)
  const q = async <R>(text: string, values: unknown[]): Promise<R[]> => (await pool.query(text, values)).rows as R[]

  let ready: Promise<void> | undefined
  const setUp = async (): Promise<void> => {
    const create = `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, version integer NOT NULL, expires_at bigint);
      CREATE TABLE IF NOT EXISTS ${rows} (id text NOT NULL, seq integer NOT NULL, format integer NOT NULL, body text NOT NULL, PRIMARY KEY (id, seq));
      CREATE TABLE IF NOT EXISTS ${approvals} (id text NOT NULL, approval_id text NOT NULL, rev integer NOT NULL, body text NOT NULL, PRIMARY KEY (id, approval_id))`
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
  /** Erases the conversation (its exchanges and approvals) when it expired; one statement, so a commit racing it sees it whole or gone. */
  const purgeExpired = async (id: string): Promise<void> => {
    if (ttlMs === undefined) return
    await q(
      `WITH gone AS (DELETE FROM ${table} WHERE id = $1 AND expires_at <= $2 RETURNING id), spent AS (DELETE FROM ${approvals} WHERE id IN (SELECT id FROM gone))
       DELETE FROM ${rows} WHERE id IN (SELECT id FROM gone)`,
      [id, Date.now()],
    )
  }
  const expiry = (): number | null => (ttlMs === undefined ? null : Date.now() + ttlMs)

  return {
    async load(id: string): Promise<StoredConversation> {
      checkSessionId(id, 'postgresSessionStore.load')
      await schema()
      await purgeExpired(id)
      // One statement: the version and the exchanges come from one snapshot. Exchanges are read even
      // without their conversation row (lost behind the store): read as new, the conversation would
      // hide them, and every commit would fail on the first one's key.
      const found = await q<{ version: unknown; seq: unknown; format: unknown; body: unknown }>(
        `SELECT h.version, e.seq, e.format, e.body FROM (SELECT 1) one LEFT JOIN ${table} h ON h.id = $1 LEFT JOIN ${rows} e ON e.id = $1 ORDER BY e.seq`,
        [id],
      )
      const records = found.filter((row) => row.body !== null && row.body !== undefined)
      const stated = found[0]?.version
      if ((stated === null || stated === undefined) && records.length === 0) return { messages: [], version: 0 }
      const version = stated === null || stated === undefined ? Number.NaN : Number(stated)
      // Exchanges 1..version, each once: anything else is a record edited or lost behind the store.
      if (!Number.isSafeInteger(version) || records.length !== version || records.some((row, i) => Number(row.seq) !== i + 1))
        throw versionMismatch(id, found[0]?.version, records.length)
      return { messages: readConversation(id, records), version }
    },
    async append(id: string, request: AppendRequest): Promise<AppendOutcome> {
      const { exchange, expected, fail } = checkAppend(id, request, 'postgresSessionStore.append')
      await schema()
      await purgeExpired(id)
      const body = encodeExchange(exchange)
      // 'fail' on a conversation the run saw: bump the version only if it is still the expected one
      // (the row lock re-checks it against the latest commit); otherwise an upsert. The expected version
      // is a bigint: one past the integer column's range is a version never reached, not an error.
      const head =
        fail && expected > 0
          ? `UPDATE ${table} SET version = version + 1, expires_at = $3 WHERE id = $1 AND version = $2::bigint RETURNING version`
          : `INSERT INTO ${table} AS cur (id, version, expires_at) VALUES ($1, 1, $3) ON CONFLICT (id) DO UPDATE SET version = cur.version + 1, expires_at = $3
             WHERE ${fail ? 'cur.version = $2::bigint' : '$2::bigint IS NOT NULL'} RETURNING version`
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
      checkSessionId(id, 'postgresSessionStore.delete')
      await schema()
      await q(`WITH gone AS (DELETE FROM ${table} WHERE id = $1), spent AS (DELETE FROM ${approvals} WHERE id = $1) DELETE FROM ${rows} WHERE id = $1`, [id])
    },
    // An approval of a conversation that expired is erased with it, whether the conversation was read since or not.
    approvals: postgresApprovals(q, schema, approvals, async (id, creating) => {
      await purgeExpired(id)
      // A pause before the conversation's first exchange starts its life: it is erased a ttl later unless a commit comes.
      if (creating && ttlMs !== undefined) await q(`INSERT INTO ${table} (id, version, expires_at) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING`, [id, expiry()])
    }),
  }
}

/** Approvals in `<table>_approvals`: one row each, a swap one `UPDATE ... WHERE rev = $n` (atomic under the row lock). */
function postgresApprovals(
  q: <R>(text: string, values: unknown[]) => Promise<R[]>,
  schema: () => Promise<void>,
  table: string,
  expire: (sessionId: string, creating: boolean) => Promise<void>,
): ApprovalSlots {
  return {
    async create(sessionId, approvalId, body) {
      checkSlotIds(sessionId, approvalId, 'postgresSessionStore.approvals.create')
      await schema()
      await expire(sessionId, true)
      const made = await q(`INSERT INTO ${table} (id, approval_id, rev, body) VALUES ($1, $2, 1, $3) ON CONFLICT DO NOTHING RETURNING rev`, [
        sessionId,
        approvalId,
        body,
      ])
      return made.length === 1
    },
    async read(sessionId, approvalId) {
      checkSlotIds(sessionId, approvalId, 'postgresSessionStore.approvals.read')
      await schema()
      await expire(sessionId, false)
      const found = await q<{ rev: unknown; body: unknown }>(`SELECT rev, body FROM ${table} WHERE id = $1 AND approval_id = $2`, [sessionId, approvalId])
      const row = found[0]
      return row === undefined ? undefined : { rev: Number(row.rev), body: String(row.body) }
    },
    async swap(sessionId, approvalId, rev, body) {
      checkSlotIds(sessionId, approvalId, 'postgresSessionStore.approvals.swap')
      if (!isRevision(rev)) return false
      await schema()
      await expire(sessionId, false)
      const swapped = await q(`UPDATE ${table} SET rev = rev + 1, body = $4 WHERE id = $1 AND approval_id = $2 AND rev = $3::bigint RETURNING rev`, [
        sessionId,
        approvalId,
        rev,
        body,
      ])
      return swapped.length === 1
    },
  }
}
