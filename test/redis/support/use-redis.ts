import type { Redis } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { redisServer } from '../../support/requirements.ts'
import { connectClient } from './redis-client.ts'
import { startRedisServer, type RedisServer } from './redis-server.ts'

/** A real redis-server for one test file, with `count` bounded clients; read after `beforeAll`. */
export interface RedisFixture {
  readonly server: RedisServer
  readonly client: Redis
  readonly clients: readonly Redis[]
}

/**
 * Starts a redis-server (and its clients) before the file's tests and stops it after them. Without
 * a redis-server it starts nothing: the file's suites are skipped (or failed, under CI) by `describeWith`.
 */
export function useRedis(count = 1): RedisFixture {
  let server: RedisServer | undefined
  let clients: Redis[] = []
  beforeAll(async () => {
    if (!redisServer.met) return
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
