import type { Cluster } from 'ioredis'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { redisSessionStore } from '../../src/redis.ts'
import { isStateLostError, redisStore } from '../../src/store/redis/index.ts'
import { sharedBudget } from '../../src/index.ts'
import { type StoreBackend, sessionStoreContract } from '../sessions/support/session-store-contract.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { stateStoreContract } from '../support/state-store-contract.ts'
import { connectClient } from './support/redis-client.ts'
import { useRedisCluster } from './support/use-redis-cluster.ts'

const redis = useRedisCluster()
const PREFIX = 'contract:'

/** The session store on the cluster, with every key and value under `prefix` across the masters. */
function clusterSessions(client: Cluster, prefix: string): StoreBackend {
  return {
    store: redisSessionStore(client, { keyPrefix: prefix }),
    withTtl: (ttlMs) => redisSessionStore(client, { keyPrefix: prefix, ttlMs }),
    raw: async () => {
      const keys = await redis.keys(prefix)
      // Conversations are lists, their approvals hashes.
      const values = await Promise.all(keys.map(async (key) => ((await client.type(key)) === 'hash' ? client.hgetall(key) : client.lrange(key, 0, -1))))
      return JSON.stringify([keys, values])
    },
    plant: async (id, format) => {
      await client.rpush(`${prefix}{${id}}`, `{"f":${format},"x":[]}`)
    },
  }
}

describeWith(redisServer)('Redis Cluster (3 masters, 3 replicas)', () => {
  describe('StateStore contract: redisStore on a Cluster', () => {
    stateStoreContract(async () => {
      await redis.flush()
      return { store: redisStore(redis.client, { keyPrefix: PREFIX }), advance: (ms) => redis.advance(PREFIX, ms) }
    })
  })

  describe('SessionStore contract: redisSessionStore on a Cluster', () => {
    sessionStoreContract('cluster', () => clusterSessions(redis.client, 'contract-session:'))
  })

  describe('redisSessionStore key placement on a Cluster', () => {
    it('keeps a conversation whose id starts with } and its approvals in one slot: stored, read back and deleted together', async () => {
      await redis.flush()
      const store = redisSessionStore(redis.client, { keyPrefix: 'brace:' })
      const slots = store.approvals as NonNullable<typeof store.approvals>
      for (const id of ['}lead', '}', '}}x{y}', 'mid}dle', '{open']) {
        const appended = await store.append(id, { expectedVersion: 0, exchange: [{ role: 'user', content: `hi ${id}` }] })
        expect(appended).toMatchObject({ committed: true, version: 1 })
        expect(await slots.create(id, 'apr_1', '{"v":1}')).toBe(true)
        expect((await store.load(id)).messages).toEqual([{ role: 'user', content: `hi ${id}` }])
        expect(await slots.read(id, 'apr_1')).toMatchObject({ body: '{"v":1}' })
        // The delete removes both in one script: one slot, or the cluster refuses it with CROSSSLOT.
        await store.delete(id)
        expect((await store.load(id)).version).toBe(0)
        expect(await slots.read(id, 'apr_1')).toBeUndefined()
      }
      // Nothing of the five conversations is left behind.
      expect((await redis.keys('brace:')).length).toBe(0)
    })
  })

  describe('redisStore key placement on a Cluster', () => {
    it('spreads the budgets of one store over the masters, each with its reservations in its own slot', async () => {
      await redis.flush()
      const store = redisStore(redis.client, { keyPrefix: 'spread:' })
      const budgets = Array.from({ length: 24 }, (_, i) => `budget:team-${i}`)
      for (const key of budgets) {
        expect(await store.reserve(key, 'attempt-1', 1, 10, 60_000)).toEqual({ granted: true, spent: 0, held: 0 })
        expect(await store.settle(key, 'attempt-1', 0.25)).toBe(0.25)
        expect(await store.reserve(key, 'attempt-2', 2, 10, 60_000)).toEqual({ granted: true, spent: 0.25, held: 0 })
      }
      const perMaster = await Promise.all(redis.client.nodes('master').map((node) => node.keys('spread:*')))
      expect(perMaster.filter((keys) => keys.length > 0).length).toBeGreaterThan(1)
      for (const key of budgets) {
        const beside = [`spread:${key}`, `{spread:${key}}:holds`, `{spread:${key}}:holds:expiry`, `{spread:${key}}:holds:sum`, `{spread:${key}}:rg-epoch`]
        expect(await redis.keys(`{spread:${key}}`)).toEqual(beside.slice(1))
        const slots = await Promise.all(beside.map((k) => redis.client.cluster('KEYSLOT', k)))
        expect(new Set(slots).size).toBe(1)
      }
    })

    it('keeps a key that has its own hash tag as it is, its reservations beside it', async () => {
      await redis.flush()
      const store = redisStore(redis.client, { keyPrefix: '{billing}:' })
      await store.reserve('budget:a', 'r1', 1, 10, 60_000)
      await store.settle('budget:a', 'r1', 0.5)
      await store.reserve('budget:a', 'r2', 1, 10, 60_000)
      expect(await redis.keys('{billing}:')).toEqual([
        '{billing}:budget:a',
        '{billing}:budget:a:holds',
        '{billing}:budget:a:holds:expiry',
        '{billing}:budget:a:holds:sum',
        '{billing}:rg-epoch',
      ])
    })

    it('with durable, acknowledges each charge once the replica of the master holding its key has it', { timeout: 20_000 }, async () => {
      await redis.flush()
      const nodes = await Promise.all(redis.cluster.ports.map((port) => connectClient({ host: '127.0.0.1', port })))
      try {
        // A fresh cluster's replicas may still be in their first sync.
        for (const node of nodes) {
          while (/role:slave/.test(await node.info('replication')) && !/master_link_status:up/.test(await node.info('replication'))) await sleep(50)
          await node.call('READONLY')
        }
        // A busy machine may keep a replica from answering at once: WAIT may take its time.
        const store = redisStore(redis.client, { keyPrefix: 'durable:', durable: { replicas: 1, timeoutMs: 2_000 } })
        for (const key of Array.from({ length: 12 }, (_, i) => `budget:team-${i}`)) {
          await store.reserve(key, 'r1', 1, 10, 60_000)
          expect(await store.settle(key, 'r1', 0.5)).toBe(0.5)
          // Read at once from every node: the key's master and its replica answer, the others redirect.
          const reads = await Promise.allSettled(nodes.map((node) => node.get(`durable:${key}`)))
          expect(reads.filter((r) => r.status === 'fulfilled').map((r) => r.value)).toEqual(['0.5', '0.5'])
        }
      } finally {
        for (const node of nodes) node.disconnect()
      }
    })

    it('rejects a reservation whose key has a stray } and no hash tag with a RedisStoreError naming CROSSSLOT', async () => {
      await redis.flush()
      const store = redisStore(redis.client)
      await expect(store.reserve('odd}key', 'r1', 1, 10, 60_000)).rejects.toMatchObject({
        name: 'RedisStoreError',
        operation: 'reserve',
        message: expect.stringContaining('CROSSSLOT'),
      })
    })
  })

  it('fails a shared budget closed when a flush empties every master, until it is re-armed', async () => {
    await redis.flush()
    const budgets = ['a', 'b', 'c', 'd'].map((team) => sharedBudget({ store: redisStore(redis.client, { keyPrefix: 'lost:' }), key: `budget:${team}`, usd: 1 }))
    for (const budget of budgets) await budget.settle('r0', 0.5)
    await redis.flush()
    for (const budget of budgets) {
      await expect(budget.reserve('r1', 0.1)).rejects.toSatisfy(isStateLostError)
      budget.rearm()
      expect(await budget.reserve('r2', 0.1)).toEqual({ granted: true, spent: 0, held: 0 })
    }
  })
})
