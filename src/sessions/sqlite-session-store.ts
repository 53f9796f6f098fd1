import type { DatabaseSync } from 'node:sqlite'
import { typeName } from '../model/describe-value.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { checkAppend, encodeExchange, readConversation, SESSION_FORMAT, versionMismatch } from './exchange-format.ts'
import { checkSessionId } from './session-id.ts'
import { type ApprovalSlots, checkSlotIds, isRevision } from './approval-slots.ts'
import { ttlOption } from './session-ttl.ts'
import { type AppendOutcome, type AppendRequest, type SessionStore, type StoredConversation, staleBy } from './session-store.ts'

/** Options of {@link sqliteSessionStore}. */
export interface SqliteSessionStoreOptions {
  /** The database file (created if missing); `':memory:'` for a private in-memory database. */
  readonly path: string
  /** A conversation not appended to for this long is erased (whole ms, at most 100 years). @default no expiry */
  readonly ttlMs?: number
  /** How long a write waits for another process's write to finish before it fails, in whole ms (0: at once). @default 5000 */
  readonly busyTimeoutMs?: number
}

/** The options {@link sqliteSessionStore} takes, checked once at construction. */
export const SQLITE_SESSION_STORE = optionsContract<SqliteSessionStoreOptions>('sqliteSessionStore', {
  path: option.where("a non-empty string (a file, or ':memory:')", (v) => typeof v === 'string' && v !== ''),
  ttlMs: ttlOption,
  busyTimeoutMs: option.duration(0),
})

/** A {@link SessionStore} on a SQLite file, with `close()` to release it. */
export interface SqliteSessionStore extends SessionStore {
  /** Closes the database; the store cannot be used afterwards. */
  close(): void
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS rg_sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, expires_at INTEGER);
CREATE TABLE IF NOT EXISTS rg_session_exchanges (
  id TEXT NOT NULL, seq INTEGER NOT NULL, format INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rg_session_approvals (
  id TEXT NOT NULL, approval_id TEXT NOT NULL, rev INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (id, approval_id)
) WITHOUT ROWID;`

interface ExchangeRow {
  readonly seq: unknown
  readonly format: unknown
  readonly body: unknown
}

/**
 * Conversations in a SQLite file through `node:sqlite` (Node 22.5+, no native addon): persistence
 * with nothing to run. Several processes may share the file: each commit is one `BEGIN IMMEDIATE`
 * transaction (write-ahead log, a writer waits up to `busyTimeoutMs` for another), so a process
 * killed mid-commit leaves the conversation as it was. Calls are synchronous under the promise
 * (SQLite on a local file answers in microseconds).
 *
 * @example
 * import { sqliteSessionStore } from 'reliability-gate/sqlite'
 * const agent = Agent.create({ provider, sessions: sqliteSessionStore({ path: 'conversations.db' }) }).build()
 */
export function sqliteSessionStore(options: SqliteSessionStoreOptions): SqliteSessionStore {
  const { path, ttlMs, busyTimeoutMs: busy = 5000 } = SQLITE_SESSION_STORE.check(options)
  if (path === undefined) throw new TypeError(`sqliteSessionStore: path must be a non-empty string (a file, or ':memory:'), got ${typeName(path)}`)
  const db = new (sqliteModule().DatabaseSync)(path)
  db.exec(`PRAGMA busy_timeout = ${busy}`)
  if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = FULL')
  // A deleted conversation is overwritten in the file, not only unlinked (the right to be forgotten).
  db.exec('PRAGMA secure_delete = ON')
  db.exec(SCHEMA)
  const head = db.prepare('SELECT version, expires_at AS expiresAt FROM rg_sessions WHERE id = ?')
  const rows = db.prepare('SELECT seq, format, body FROM rg_session_exchanges WHERE id = ? ORDER BY seq')
  const anyRow = db.prepare('SELECT 1 FROM rg_session_exchanges WHERE id = ? LIMIT 1')
  const upsert = db.prepare(
    'INSERT INTO rg_sessions (id, version, expires_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, expires_at = excluded.expires_at',
  )
  const insert = db.prepare('INSERT INTO rg_session_exchanges (id, seq, format, body) VALUES (?, ?, ?, ?)')
  const adopt = db.prepare('INSERT OR IGNORE INTO rg_sessions (id, version, expires_at) VALUES (?, 0, ?)')
  const eraseHead = db.prepare('DELETE FROM rg_sessions WHERE id = ?')
  const eraseRows = db.prepare('DELETE FROM rg_session_exchanges WHERE id = ?')
  const eraseApprovals = db.prepare('DELETE FROM rg_session_approvals WHERE id = ?')

  const erase = (id: string): void => {
    eraseRows.run(id)
    eraseHead.run(id)
    eraseApprovals.run(id)
  }
  /**
   * The conversation's version, erasing it first when it expired (inside the caller's transaction).
   * A version edited into no count (SQLite keeps any value in any column), or exchanges left without
   * their conversation row, fail a load and a commit alike.
   */
  const versionOf = (id: string): number => {
    const row = head.get(id) as { version: unknown; expiresAt: number | null } | undefined
    if (row === undefined) {
      // Exchanges without their conversation row: the row was lost behind the store. Read as new, the
      // conversation would hide them, and every commit would fail on the first one's key.
      if (anyRow.get(id) !== undefined) throw versionMismatch(id, null, (rows.all(id) as unknown[]).length)
      return 0
    }
    if (row.expiresAt !== null && row.expiresAt <= Date.now()) {
      erase(id)
      return 0
    }
    if (typeof row.version !== 'number' || !Number.isSafeInteger(row.version) || row.version < 0)
      throw versionMismatch(id, row.version, (rows.all(id) as unknown[]).length)
    return row.version
  }
  /** Erases the conversation when it expired (inside the caller's transaction), its rows read no further. */
  const expireDue = (id: string): void => {
    const row = head.get(id) as { expiresAt: number | null } | undefined
    if (row !== undefined && row.expiresAt !== null && row.expiresAt <= Date.now()) erase(id)
  }
  const inTransaction = <R>(mode: 'DEFERRED' | 'IMMEDIATE', work: () => R): R => {
    db.exec(`BEGIN ${mode}`)
    try {
      const result = work()
      db.exec('COMMIT')
      return result
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK')
      throw error
    }
  }

  return {
    async load(id: string): Promise<StoredConversation> {
      checkSessionId(id, 'sqliteSessionStore.load')
      // Expiry may erase: a write transaction, taken only when the conversation carries an expiry.
      return inTransaction(ttlMs === undefined ? 'DEFERRED' : 'IMMEDIATE', () => {
        const version = versionOf(id)
        if (version === 0) return { messages: [], version: 0 }
        const found = rows.all(id) as unknown as ExchangeRow[]
        // Exchanges 1..version, each once: anything else is a record edited or lost behind the store.
        if (found.length !== version || found.some((row, i) => Number(row.seq) !== i + 1)) throw versionMismatch(id, version, found.length)
        return { messages: readConversation(id, found), version }
      })
    },
    async append(id: string, request: AppendRequest): Promise<AppendOutcome> {
      const { exchange, expected, fail } = checkAppend(id, request, 'sqliteSessionStore.append')
      const body = encodeExchange(exchange)
      return inTransaction('IMMEDIATE', (): AppendOutcome => {
        const current = versionOf(id)
        if (fail && current !== expected) return { committed: false, version: current }
        insert.run(id, current + 1, SESSION_FORMAT, body)
        upsert.run(id, current + 1, ttlMs === undefined ? null : Date.now() + ttlMs)
        return { committed: true, version: current + 1, staleBy: staleBy(current, expected) }
      })
    },
    async delete(id: string): Promise<void> {
      checkSessionId(id, 'sqliteSessionStore.delete')
      inTransaction('IMMEDIATE', () => erase(id))
      // Old copies of the erased pages live on in the write-ahead log until a checkpoint copies the new ones over them.
      if (path !== ':memory:') db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    },
    // An approval of a conversation that expired is erased with it, whether the conversation was read since or not.
    approvals: sqliteApprovals(db, (id, creating) => {
      if (ttlMs === undefined) return
      inTransaction('IMMEDIATE', () => {
        expireDue(id)
        // A pause before the conversation's first exchange starts its life: it is erased a ttl later unless a commit comes.
        if (creating) adopt.run(id, Date.now() + ttlMs)
      })
    }),
    close(): void {
      if (db.isOpen) db.close()
    },
  }
}

/** Approvals in the same file: one row each, a swap one `UPDATE ... WHERE rev = ?` (atomic across the processes sharing the file). */
function sqliteApprovals(db: DatabaseSync, expire: (sessionId: string, creating: boolean) => void): ApprovalSlots {
  const create = db.prepare('INSERT OR IGNORE INTO rg_session_approvals (id, approval_id, rev, body) VALUES (?, ?, 1, ?)')
  const read = db.prepare('SELECT rev, body FROM rg_session_approvals WHERE id = ? AND approval_id = ?')
  const swap = db.prepare('UPDATE rg_session_approvals SET rev = rev + 1, body = ? WHERE id = ? AND approval_id = ? AND rev = ?')
  return {
    async create(sessionId, approvalId, body) {
      checkSlotIds(sessionId, approvalId, 'sqliteSessionStore.approvals.create')
      expire(sessionId, true)
      return Number(create.run(sessionId, approvalId, body).changes) === 1
    },
    async read(sessionId, approvalId) {
      checkSlotIds(sessionId, approvalId, 'sqliteSessionStore.approvals.read')
      expire(sessionId, false)
      const row = read.get(sessionId, approvalId) as { rev: unknown; body: unknown } | undefined
      if (row === undefined) return undefined
      // A row edited behind the store is handed on as text: the record's reader refuses what it cannot read.
      return { rev: Number(row.rev), body: String(row.body) }
    },
    async swap(sessionId, approvalId, rev, body) {
      checkSlotIds(sessionId, approvalId, 'sqliteSessionStore.approvals.swap')
      expire(sessionId, false)
      if (!isRevision(rev)) return false
      return Number(swap.run(body, sessionId, approvalId, rev).changes) === 1
    },
  }
}

/**
 * `node:sqlite`, read at the first store's creation: a static import would fail the whole entry on a
 * runtime without it, and bundlers rewrite `node:sqlite` (which has no bare-name form) to `sqlite`.
 */
function sqliteModule(): { DatabaseSync: typeof DatabaseSync } {
  const loaded = process.getBuiltinModule?.('node:sqlite') as { DatabaseSync: typeof DatabaseSync } | undefined
  if (loaded === undefined)
    throw new Error('sqliteSessionStore: node:sqlite is not available on this runtime (Node 22.13 or newer; 22.5 with --experimental-sqlite)')
  return loaded
}
