import type { Redis } from 'ioredis'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createGate, sharedBudget } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { redisSessionStore } from '../../src/redis.ts'
import { isRedisStoreError, redisStore } from '../../src/store/redis/index.ts'
import { exchangeOf } from '../sessions/support/session-store-contract.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { ask, validRefundJson } from '../support/schemas.ts'
import { connectClient } from './support/redis-client.ts'
import { startRedisServer, type RedisServer } from './support/redis-server.ts'
import { useRedis } from './support/use-redis.ts'

const DURABLE = { replicas: 1, timeoutMs: 50 } as const
// Where a replica is there to answer: long enough for a busy machine to schedule it.
const DURABLE_WITH_REPLICA = { replicas: 1, timeoutMs: 2_000 } as const
const CALLS = 1_000

// Two servers: `lone` has no replica; `master` has one, `replica`, attached before the tests.
const lone = useRedis()
const master = useRedis()
let replicaServer: RedisServer | undefined
let replica: Redis

/** The value at quantile `q` of `ms`, sorted. */
const quantile = (ms: readonly number[], q: number): number => [...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.floor(q * ms.length))] as number

describeWith(redisServer)('redisStore and redisSessionStore with durable: { replicas, timeoutMs }', () => {
  beforeAll(async () => {
    replicaServer = await startRedisServer()
    replica = await connectClient(replicaServer)
    // A full sync at once, instead of waiting 5 s for more replicas to share it.
    await master.client.config('SET', 'repl-diskless-sync-delay', '0')
    await replica.replicaof('127.0.0.1', master.server.port)
    const deadline = Date.now() + 10_000
    while (!(await replica.info('replication')).includes('master_link_status:up')) {
      if (Date.now() > deadline) throw new Error('the replica did not sync in time')
      await sleep(20)
    }
    await master.client.set('warm-up', '1')
    if ((await master.client.wait(1, 5_000)) !== 1) throw new Error('the replica does not acknowledge writes')
  }, 20_000)
  afterAll(async () => {
    replica?.disconnect()
    await replicaServer?.stop()
  })
  beforeEach(async () => {
    await lone.client.flushall()
    await master.client.flushall()
  })

  describe('on a master without a replica', () => {
    it('rejects a reservation and a charge that no replica confirmed, with a RedisStoreError saying so', async () => {
      const store = redisStore(lone.client, { durable: DURABLE })
      for (const call of [() => store.reserve('budget', 'r1', 1, 10, 60_000), () => store.settle('budget', 'r1', 1)]) {
        const error = await call().catch((e: unknown) => e)
        expect(isRedisStoreError(error)).toBe(true)
        expect((error as Error).message).toContain('0 of 1 replicas acknowledged the write within 50 ms (WAIT)')
      }
    })

    it('never waits for breaker and rate-limit operations, which are advisory', async () => {
      const store = redisStore(lone.client, { durable: DURABLE })
      await store.set('k', 'v')
      expect(await store.increment('n', 1)).toBe(1)
      expect(await store.compareAndSet('k', 'v', 'w')).toBe(true)
      expect(await store.get('k')).toBe('w')
    })

    it('fails a shared budget closed with code budget-store-failed, before its provider is called', async () => {
      const provider = scripted([validRefundJson])
      const budget = sharedBudget({ store: redisStore(lone.client, { durable: DURABLE }), key: 'budget', usd: 1 })
      const error = await createGate({ providers: provider, model: 'm', pricing: { m: { input: 1, output: 0 } }, budget })
        .run(ask('x'))
        .catch((e: unknown) => e)
      expect(error).toMatchObject({ kind: 'unknown', cause: { code: 'budget-store-failed' } })
      expect(provider.calls).toBe(0)
    })

    it('rejects a conversation commit that no replica confirmed', async () => {
      const sessions = redisSessionStore(lone.client, { keyPrefix: 'chat:', durable: DURABLE })
      await expect(sessions.append('c', { exchange: exchangeOf('a'), expectedVersion: 0 })).rejects.toThrow(
        '0 of 1 replicas acknowledged the write within 50 ms (WAIT)',
      )
    })

    it('rejects an approval record (a pause, a decision, a claim) that no replica confirmed, as it does a commit', async () => {
      const sessions = redisSessionStore(lone.client, { keyPrefix: 'chat:', durable: DURABLE })
      const slots = sessions.approvals as NonNullable<typeof sessions.approvals>
      await expect(slots.create('c', 'apr-1', 'pending')).rejects.toThrow('0 of 1 replicas acknowledged the write within 50 ms (WAIT)')
      // What no replica confirmed may still be on the master: a decision on it is refused the same way.
      expect(await slots.read('c', 'apr-1')).toEqual({ rev: 1, body: 'pending' })
      await expect(slots.swap('c', 'apr-1', 1, 'decided')).rejects.toThrow('0 of 1 replicas acknowledged the write within 50 ms (WAIT)')
    })
  })

  describe('on a master with a replica', () => {
    it('acknowledges a reservation, a charge, a commit and an approval record only once the replica has them', async () => {
      const store = redisStore(master.client, { keyPrefix: 'dur:', durable: DURABLE_WITH_REPLICA })
      expect(await store.reserve('budget', 'r1', 0.5, 1, 60_000)).toEqual({ granted: true, spent: 0, held: 0 })
      expect(await replica.hget('{dur:budget}:holds', 'r1')).toBe('0.5')
      expect(await store.settle('budget', 'r1', 0.25)).toBe(0.25)
      expect(await replica.get('dur:budget')).toBe('0.25')
      const sessions = redisSessionStore(master.client, { keyPrefix: 'chat:', durable: DURABLE_WITH_REPLICA })
      await sessions.append('c', { exchange: exchangeOf('a'), expectedVersion: 0 })
      expect(await replica.llen('chat:{c}')).toBe(1)
      expect(await sessions.approvals?.create('c', 'apr-1', 'pending')).toBe(true)
      expect(await replica.hget('chat:{c}:approvals', 'apr-1')).toBe('1\npending')
      expect(await sessions.approvals?.swap('c', 'apr-1', 1, 'decided')).toBe(true)
      expect(await replica.hget('chat:{c}:approvals', 'apr-1')).toBe('2\ndecided')
    })

    it('runs its scripts again after SCRIPT FLUSH (NOSCRIPT falls back to EVAL, still followed by WAIT)', async () => {
      const store = redisStore(master.client, { keyPrefix: 'dur:', durable: DURABLE_WITH_REPLICA })
      await store.settle('budget', 'r1', 1)
      await master.client.script('FLUSH')
      expect(await store.settle('budget', 'r2', 1)).toBe(2)
      expect(await replica.get('dur:budget')).toBe('2')
    })

    it(`measures what WAIT adds to each reservation and charge (${CALLS} of each, loopback; printed)`, async () => {
      const stores = {
        asynchronous: redisStore(master.client, { keyPrefix: 'cost-a:' }),
        durable: redisStore(master.client, { keyPrefix: 'cost-d:', durable: DURABLE_WITH_REPLICA }),
      }
      const ms: Record<keyof typeof stores, number[]> = { asynchronous: [], durable: [] }
      const timed = async (mode: keyof typeof stores, call: () => Promise<unknown>): Promise<void> => {
        const started = performance.now()
        await call()
        ms[mode].push(performance.now() - started)
      }
      // The two modes take turns, so that a busy moment of the machine weighs on both alike.
      for (let i = 0; i < CALLS; i++) {
        for (const mode of ['asynchronous', 'durable'] as const) {
          const store = stores[mode]
          await timed(mode, () => store.reserve('budget', `r${i}`, 0.001, 1_000, 60_000))
          await timed(mode, () => store.settle('budget', `r${i}`, 0.001))
        }
      }
      expect(Number(await replica.get('cost-d:budget'))).toBeCloseTo(CALLS * 0.001, 9)
      const [a50, a99, d50, d99] = [quantile(ms.asynchronous, 0.5), quantile(ms.asynchronous, 0.99), quantile(ms.durable, 0.5), quantile(ms.durable, 0.99)]
      console.log(
        `[durable cost] ${2 * CALLS} calls (reserve, settle) per mode on loopback, one replica: ` +
          `asynchronous p50 ${a50.toFixed(3)} ms, p99 ${a99.toFixed(3)} ms; durable p50 ${d50.toFixed(3)} ms, p99 ${d99.toFixed(3)} ms; ` +
          `added p50 ${(d50 - a50).toFixed(3)} ms, p99 ${(d99 - a99).toFixed(3)} ms`,
      )
    })
  })
})

describe('durable: options', () => {
  const pipeline = { evalsha: () => undefined, eval: () => undefined, wait: () => undefined, exec: async () => [] }
  const client = { eval: async () => null, evalsha: async () => null, pipeline: () => pipeline }

  it.each([
    [{ durable: 1 }, new TypeError('redisStore: durable must be an object { replicas, timeoutMs }, got number')],
    [{ durable: { replicas: 0, timeoutMs: 100 } }, new RangeError('redisStore: durable.replicas must be a positive integer, got 0')],
    [{ durable: { replicas: 1, timeoutMs: 0 } }, new RangeError('redisStore: durable.timeoutMs must be a positive integer, got 0')],
    [{ durable: { replicas: 1 } }, new RangeError('redisStore: durable.timeoutMs must be a positive integer, got undefined')],
    [
      { durable: { replicas: 1, timeoutMs: 100, replica: 2 } },
      new TypeError('redisStore: durable: unknown option "replica" (did you mean "replicas"?); the options are replicas, timeoutMs'),
    ],
    [
      { durable: { replicas: 1, timeoutMs: 100 }, commandTimeoutMs: 100 },
      new RangeError('redisStore: commandTimeoutMs (100) must exceed durable.timeoutMs (100): WAIT holds each answer up to that long'),
    ],
  ])('refuses %j with a typed error naming the option', (options, expected) => {
    expect(() => redisStore(client, options as never)).toThrow(expected)
  })

  it('refuses durable on a client that cannot pipeline, in both stores', () => {
    const plain = { eval: async () => null, evalsha: async () => null }
    expect(() => redisStore(plain, { durable: DURABLE })).toThrow(TypeError)
    expect(() => redisStore(plain, { durable: DURABLE })).toThrow('redisStore: durable needs a client with pipeline()')
    expect(() => redisSessionStore(plain, { durable: DURABLE })).toThrow('redisSessionStore: durable needs a client with pipeline()')
    expect(() => redisSessionStore(client, { durable: { replicas: 1.5, timeoutMs: 10 } })).toThrow(
      new RangeError('redisSessionStore: durable.replicas must be a positive integer, got 1.5'),
    )
  })
})
