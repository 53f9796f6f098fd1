import type { Redis } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { connectClient } from './redis-client.ts'
import { startRedisServer, type RedisServer } from './redis-server.ts'

/** A real redis-server for one test file, with `count` bounded clients; read after `beforeAll`. */
export interface RedisFixture {
  readonly server: RedisServer
  readonly client: Redis
  readonly clients: readonly Redis[]
}

/** Starts a redis-server (and its clients) before the file's tests and stops it after them. */
export function useRedis(count = 1): RedisFixture {
  let server: RedisServer | undefined
  let clients: Redis[] = []
  beforeAll(async () => {
    server = await startRedisServer()
    const running = server
    clients = await Promise.all(Array.from({ length: count }, () => connectClient(running)))
  })
  afterAll(async () => {
    for (const c of clients) c.disconnect()
    await server?.stop()
  })
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useRedis: the server is read before beforeAll ran')
    return value
  }
  return {
    get server() {
      return ready(server)
    },
    get client() {
      return ready(clients[0])
    },
    get clients() {
      return clients
    },
  }
}
