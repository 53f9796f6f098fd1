import { memorySessionStore, type SessionStore } from '../../../src/index.ts'
import { postgresSessionStore, type PgQueryable } from '../../../src/postgres.ts'
import { redisSessionStore } from '../../../src/redis.ts'
import { sqliteSessionStore } from '../../../src/sqlite.ts'
import type { RedisLike } from '../../../src/store/redis/redis-like.ts'
import type { OptionsEntry } from './entry.ts'

/**
 * A client and a pool that fail the test if a call reaches them: every option is checked at
 * construction (and every append request before its I/O), so none of these calls sends anything.
 */
const unreachable = (): never => {
  throw new Error('the options check must run before any I/O')
}
const client = { evalsha: unreachable, eval: unreachable, pipeline: unreachable } as unknown as RedisLike
const pool: PgQueryable = { query: unreachable }

/** A valid append request with `options` merged over it. */
const appendTo = (store: SessionStore) => (options: Record<string, unknown>) =>
  store.append('entry', { exchange: [{ role: 'user', content: 'q' }], expectedVersion: 0, ...options })

const STORES: readonly (readonly [string, () => SessionStore])[] = [
  ['memorySessionStore', () => memorySessionStore()],
  ['sqliteSessionStore', () => sqliteSessionStore({ path: ':memory:' })],
  ['redisSessionStore', () => redisSessionStore(client)],
  ['postgresSessionStore', () => postgresSessionStore(pool)],
]

/** The conversation stores' factories and the request every store's `append` takes. */
export const entries: readonly OptionsEntry[] = [
  {
    name: 'memorySessionStore',
    covers: ['.:memorySessionStore'],
    keys: ['ttlMs', 'now'],
    // A conversation's expiry is a timestamp compared, never a timer: up to 100 years, so not a `durations` key.
    numbers: ['ttlMs'],
    call: (options) => memorySessionStore(options),
  },
  {
    name: 'sqliteSessionStore',
    covers: ['sqlite:sqliteSessionStore'],
    keys: ['path', 'ttlMs', 'busyTimeoutMs'],
    durations: ['busyTimeoutMs'],
    numbers: ['ttlMs'],
    call: (options) => sqliteSessionStore({ path: ':memory:', ...options }).close(),
  },
  {
    name: 'redisSessionStore',
    covers: ['redis:redisSessionStore'],
    keys: ['keyPrefix', 'ttlMs', 'durable', 'commandTimeoutMs', 'maxPending'],
    durations: ['commandTimeoutMs'],
    numbers: ['ttlMs', 'maxPending'],
    call: (options) => redisSessionStore(client, options),
  },
  {
    name: 'redisSessionStore durable',
    keys: ['replicas', 'timeoutMs'],
    numbers: ['replicas', 'timeoutMs'],
    call: (options) => redisSessionStore(client, { durable: { replicas: 1, timeoutMs: 100, ...options } }),
  },
  {
    name: 'postgresSessionStore',
    covers: ['postgres:postgresSessionStore'],
    keys: ['table', 'ttlMs'],
    numbers: ['ttlMs'],
    call: (options) => postgresSessionStore(pool, options),
  },
  ...STORES.map(
    ([name, make]): OptionsEntry => ({
      name: `${name}.append request`,
      keys: ['exchange', 'expectedVersion', 'onConflict'],
      numbers: ['expectedVersion'],
      call: (options) => appendTo(make())(options),
    }),
  ),
]
