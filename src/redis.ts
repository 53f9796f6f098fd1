// `reliability-gate/redis`: the shared state store and the conversation store, on one ioredis client.
export * from './store/redis/index.ts'
export { redisSessionStore } from './sessions/redis-session-store.ts'
export type { RedisSessionStoreOptions } from './sessions/redis-session-store.ts'
export { isSessionFormatError, SessionFormatError } from './sessions/session-format-error.ts'
export type { AppendOutcome, AppendRequest, OnConflict, SessionStore, StoredConversation } from './sessions/session-store.ts'
