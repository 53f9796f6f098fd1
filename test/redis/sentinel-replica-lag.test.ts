import { expect, it } from 'vitest'
import { redisSessionStore } from '../../src/redis.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { exchangeOf, exchangesOf } from '../sessions/support/session-store-contract.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { useRedisSentinel } from './support/use-redis-sentinel.ts'

// The replica reaches the master through a relay the test freezes: the replica lags for as long as
// the test wants, deterministically (on loopback it otherwise lags well under a millisecond).
const redis = useRedisSentinel({ relayReplica: true })
const DURABLE = { replicas: 1, timeoutMs: 200 } as const

describeWith(redisServer)('Redis Sentinel: a failover while the replica lags behind the master', () => {
  it('loses the charge and the commit the master acknowledged alone; durable mode refuses them instead', { timeout: 30_000 }, async () => {
    const client = await redis.connect()
    const budget = redisStore(client, { keyPrefix: 'lag:' })
    const durableBudget = redisStore(client, { keyPrefix: 'lag-durable:', durable: DURABLE })
    const sessions = redisSessionStore(client, { keyPrefix: 'lag-chat:' })
    const durableSessions = redisSessionStore(client, { keyPrefix: 'lag-durable-chat:', durable: DURABLE })
    // Before the lag: everything reaches the replica (durable mode says so).
    await budget.settle('budget', 'r0', 1)
    await durableBudget.settle('budget', 'r0', 1)
    await sessions.append('c', { exchange: exchangeOf('before'), expectedVersion: 0 })
    await durableSessions.append('c', { exchange: exchangeOf('before'), expectedVersion: 0 })

    redis.sentinel.link?.freeze()
    // Acknowledged by the master alone...
    expect(await budget.settle('budget', 'r1', 2)).toBe(3)
    expect(await sessions.append('c', { exchange: exchangeOf('lagging'), expectedVersion: 1 })).toMatchObject({ committed: true, version: 2 })
    // ...or, in durable mode, refused: no replica confirmed them.
    await expect(durableBudget.settle('budget', 'r1', 2)).rejects.toThrow('0 of 1 replicas acknowledged the write within 200 ms (WAIT)')
    await expect(durableSessions.append('c', { exchange: exchangeOf('lagging'), expectedVersion: 1 })).rejects.toThrow('0 of 1 replicas acknowledged')

    const failover = await redis.failover()
    console.log(`[replica lag] promoted after ${failover.promotedMs} ms; the replica lagged by one charge of $2 and one commit`)
    // The client finds the new master on its own; until it has reconnected, a command is refused unsent (bounded wait).
    await reconnected(() => budget.get('budget'))
    // Asynchronous: the acknowledged charge and commit are gone.
    expect(await budget.get('budget')).toBe('1')
    expect(exchangesOf((await sessions.load('c')).messages)).toEqual(['before'])
    // Durable: everything acknowledged is there; what was refused is not.
    expect(await durableBudget.get('budget')).toBe('1')
    expect(exchangesOf((await durableSessions.load('c')).messages)).toEqual(['before'])
    // And the deployment goes on: the new master takes writes that its new replica confirms.
    expect(await durableBudget.settle('budget', 'r2', 2)).toBe(3)
  })
})

/** Retries `read` while the client is between masters (its commands refused unsent), for at most 15 s. */
async function reconnected(read: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 15_000
  for (;;) {
    try {
      await read()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}
