// `reliability-gate/postgres`: conversations in PostgreSQL, over `pg` (an optional peer dependency) or PGlite.
export { postgresSessionStore } from './sessions/postgres-session-store.ts'
export type { PgQueryable, PostgresSessionStoreOptions } from './sessions/postgres-session-store.ts'
export { isSessionFormatError, SessionFormatError } from './sessions/session-format-error.ts'
export type { AppendOutcome, AppendRequest, OnConflict, SessionStore, StoredConversation } from './sessions/session-store.ts'
