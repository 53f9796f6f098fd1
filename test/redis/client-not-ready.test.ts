import { Redis } from 'ioredis'
import { expect, it } from 'vitest'
import { isRedisStoreError, redisSessionStore, redisStore } from '../../src/redis.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { BOUNDED } from './support/redis-client.ts'
import { useRedis } from './support/use-redis.ts'

const redis = useRedis()
const BOUND_MS = 10_000

/** A client of the test server made as the README recommends, not connected yet. */
function client(extra: Record<string, unknown> = {}): Redis {
  const c = new Redis({ host: redis.server.host, port: redis.server.port, ...BOUNDED, ...extra })
  c.on('error', () => {})
  return c
}

describeWith(redisServer)('redisStore with a client that is not ready yet', () => {
  it('refuses a lazyConnect client before connect() with a RedisStoreError that says to await ready', { timeout: BOUND_MS }, async () => {
    const lazy = client({ lazyConnect: true })
    try {
      const store = redisStore(lazy, { commandTimeoutMs: 500 })
      const error = await store.get('k').catch((e: unknown) => e)
      expect(isRedisStoreError(error)).toBe(true)
      expect((error as Error).message).toMatch(/not ready \(status "wait"\).*await its 'ready' event/)
      expect((error as Error).message).not.toContain("Stream isn't writeable")
      await lazy.connect()
      await store.set('k', 'v')
      expect(await store.get('k')).toBe('v')
    } finally {
      lazy.disconnect()
    }
  })

  it('awaits a client still connecting, up to commandTimeoutMs, then runs the call', { timeout: BOUND_MS }, async () => {
    const connecting = client()
    try {
      expect(connecting.status).not.toBe('ready')
      const store = redisStore(connecting, { keyPrefix: 'early:', commandTimeoutMs: 5_000 })
      expect(await store.increment('n', 2)).toBe(2)
      expect(connecting.status).toBe('ready')
    } finally {
      connecting.disconnect()
    }
  })

  it('awaits a client still connecting without commandTimeoutMs too, until it is ready', { timeout: BOUND_MS }, async () => {
    const connecting = client()
    try {
      const store = redisStore(connecting, { keyPrefix: 'unbounded:' })
      expect(await store.get('never-set')).toBeUndefined()
      expect(connecting.status).toBe('ready')
    } finally {
      connecting.disconnect()
    }
  })

  it('refuses, saying to await ready, when the first connection attempt fails, with or without commandTimeoutMs', { timeout: BOUND_MS }, async () => {
    const nowhere = new Redis({ host: '127.0.0.1', port: 1, ...BOUNDED, retryStrategy: () => null })
    nowhere.on('error', () => {})
    try {
      const error = await redisStore(nowhere)
        .get('k')
        .catch((e: unknown) => e)
      expect(isRedisStoreError(error)).toBe(true)
      expect((error as Error).message).toMatch(/before it was ready .*await its 'ready' event|not ready .*await its 'ready' event/)
    } finally {
      nowhere.disconnect()
    }
  })

  it('rejects, never hangs, when the client never gets ready within commandTimeoutMs', { timeout: BOUND_MS }, async () => {
    // A port where nothing listens: ioredis keeps retrying, never ready.
    const nowhere = new Redis({ host: '127.0.0.1', port: 1, ...BOUNDED, retryStrategy: () => 50 })
    nowhere.on('error', () => {})
    try {
      const store = redisStore(nowhere, { commandTimeoutMs: 200 })
      const error = await store.get('k').catch((e: unknown) => e)
      expect(isRedisStoreError(error)).toBe(true)
      expect((error as Error).message).toMatch(/await its 'ready' event/)
    } finally {
      nowhere.disconnect()
    }
  })

  it('fails at once, without waiting, once a client that was ready has lost its server', { timeout: BOUND_MS }, async () => {
    const c = client({ lazyConnect: true })
    await c.connect()
    const store = redisStore(c, { commandTimeoutMs: 5_000 })
    await store.get('k')
    c.disconnect()
    const error = await store.get('k').catch((e: unknown) => e)
    expect(isRedisStoreError(error)).toBe(true)
    expect((error as Error).message).not.toMatch(/within 5000 ms/)
  })

  it('refuses a redisSessionStore load through a lazyConnect client the same way', { timeout: BOUND_MS }, async () => {
    const lazy = client({ lazyConnect: true })
    try {
      const sessions = redisSessionStore(lazy, { commandTimeoutMs: 500 })
      await expect(sessions.load('c1')).rejects.toThrow(/await its 'ready' event/)
    } finally {
      lazy.disconnect()
    }
  })
})
