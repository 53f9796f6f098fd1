/**
 * The part of a Redis client the store uses: running Lua scripts. An `ioredis` client or `Cluster` fits as is;
 * any other client fits behind a two-method adapter. Replies follow ioredis: a bulk string is a
 * `string`, a nil is `null`.
 *
 * @example
 * import Redis from 'ioredis'
 * const client: RedisLike = new Redis({ maxRetriesPerRequest: 0, enableOfflineQueue: false })
 */
export interface RedisLike {
  /** `EVALSHA sha1 numkeys key... arg...`; rejects with a `NOSCRIPT` error when the server lacks the script. */
  evalsha(sha1: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>
  /** `EVAL script numkeys key... arg...` (which also caches the script on the server). */
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>
}
