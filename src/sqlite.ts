// `reliability-gate/sqlite`: conversations in a SQLite file through node:sqlite (Node 22.5+, no native addon).
export { sqliteSessionStore } from './sessions/sqlite-session-store.ts'
export type { SqliteSessionStore, SqliteSessionStoreOptions } from './sessions/sqlite-session-store.ts'
export { isSessionFormatError, SessionFormatError } from './sessions/session-format-error.ts'
export type { AppendOutcome, AppendRequest, OnConflict, SessionStore, StoredConversation } from './sessions/session-store.ts'
