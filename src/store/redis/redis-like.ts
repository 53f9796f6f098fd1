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
  /**
   * A pipeline of commands sent in one round trip, on one connection (for a `Cluster`: to the node of
   * their keys). Only a `durable` store uses it, to send `WAIT` right after its write.
   */
  pipeline?(): RedisPipelineLike
}

/** The part of an ioredis pipeline a durable store uses: queue the script and `WAIT`, then send them. */
export interface RedisPipelineLike {
  evalsha(sha1: string, numkeys: number, ...args: (string | number)[]): unknown
  eval(script: string, numkeys: number, ...args: (string | number)[]): unknown
  wait(numreplicas: number, timeout: number): unknown
  /** Sends the queued commands; resolves with one `[error, reply]` pair per command. */
  exec(): Promise<[Error | null, unknown][] | null>
}
