import { Redis } from 'ioredis'
import type { RedisServer } from './redis-server.ts'

/** ioredis options that make a lost server fail a command at once instead of queueing it. */
export const BOUNDED = { maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 500 } as const

/** A connected client of `server` with bounded failure modes. */
export async function connectClient(server: Pick<RedisServer, 'host' | 'port'>): Promise<Redis> {
  const client = new Redis({ host: server.host, port: server.port, ...BOUNDED, lazyConnect: true })
  await client.connect()
  return client
}

/** A client of a port where nothing listens: it never reconnects, and every command fails. */
export function deadClient(port: number): Redis {
  const client = new Redis({ host: '127.0.0.1', port, ...BOUNDED, retryStrategy: () => null })
  // The failed connect is expected; without a listener ioredis logs it as unhandled.
  client.on('error', () => {})
  return client
}

// Simulated passage of time for server-side TTLs: every key under the prefix loses `ms` of its
// remaining life, and keys whose life runs out are deleted, as if `ms` had elapsed. A sorted set is
// a budget's reservations scored by their expiry on the server's clock: its scores move `ms` closer.
const ADVANCE = `
local ms = tonumber(ARGV[2])
for _, k in ipairs(redis.call('KEYS', ARGV[1] .. '*')) do
  if redis.call('TYPE', k).ok == 'zset' then
    local all = redis.call('ZRANGE', k, 0, -1, 'WITHSCORES')
    for i = 1, #all, 2 do redis.call('ZADD', k, string.format('%.17g', tonumber(all[i + 1]) - ms), all[i]) end
  end
  local left = redis.call('PTTL', k)
  if left > 0 then
    if left <= ms then redis.call('DEL', k) else redis.call('PEXPIRE', k, left - ms) end
  end
end
return 1`

/**
 * Moves the TTL clock of every key under `prefix` forward by `ms`, without waiting: the keys that
 * start with it and those that start with it inside a hash tag (`{<prefix>...}`, a budget's reservations).
 */
export async function advanceTtls(client: Redis, prefix: string, ms: number): Promise<void> {
  await client.eval(ADVANCE, 0, prefix, String(ms))
  await client.eval(ADVANCE, 0, `{${prefix}`, String(ms))
}
