import { Redis } from 'ioredis-v5'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { redisStore } from '../../src/store/redis/index.ts'
import { startRedisServer, type RedisServer } from '../redis/support/redis-server.ts'
import { describeWith, redisServer } from '../support/requirements.ts'

// The oldest supported major of the optional ioredis peer: the store needs only eval/evalsha.
describeWith(redisServer)('redisStore over ioredis 5', () => {
  let server: RedisServer
  let client: Redis
  beforeAll(async () => {
    server = await startRedisServer()
    client = new Redis({ host: server.host, port: server.port, maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true })
    await client.connect()
  })
  afterAll(async () => {
    client.disconnect()
    await server.stop()
  })

  it('runs the store operations through an ioredis 5 client', async () => {
    const store = redisStore(client, { keyPrefix: 'v5:' })
    expect(await store.increment('spent', 2.5)).toBe(2.5)
    expect(await store.increment('spent', 1)).toBe(3.5)
    await store.set('state', 'open', 60_000)
    expect(await store.get('state')).toBe('open')
    expect(await store.compareAndSet('state', 'open', 'closed')).toBe(true)
    expect(await store.compareAndSet('state', 'open', 'half-open')).toBe(false)
    expect(await store.get('state')).toBe('closed')
  })
})
