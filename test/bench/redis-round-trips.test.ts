import type { Redis } from 'ioredis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { roundTripsPerAttempt } from '../../bench/redis/attempt-cost.ts'
import { parseServerStats, serverStats, serverWork } from '../../bench/redis/redis-info.ts'
import { countRoundTrips, type RoundTripCounter } from '../../bench/redis/round-trip-counter.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { useRedis } from '../redis/support/use-redis.ts'
import { describeWith, redisServer } from '../support/requirements.ts'

// `npm run bench:redis` reports round trips per attempt from this counter: it must count exactly.
const redis = useRedis(2)

describeWith(redisServer)('the bench’s round-trip counter', () => {
  let client: Redis
  let admin: Redis
  let counter: RoundTripCounter
  beforeEach(async () => {
    ;[client, admin] = redis.clients as [Redis, Redis]
    await admin.flushdb()
    await admin.script('FLUSH')
    counter = countRoundTrips(client)
  })
  afterEach(() => counter.detach())

  it('counts one store.get as one round trip and one EVALSHA once the script is cached', async () => {
    const store = redisStore(client)
    await store.get('k')
    counter.reset()
    await store.get('k')
    expect(counter.read()).toEqual({ roundTrips: 1, commands: 1, byName: { evalsha: 1 } })
  })

  it('counts the first use of a script as two round trips: EVALSHA refused, then EVAL', async () => {
    await redisStore(client).get('k')
    expect(counter.read()).toEqual({ roundTrips: 2, commands: 2, byName: { evalsha: 1, eval: 1 } })
  })

  it('counts a pipeline, and a MULTI/EXEC, as one round trip however many commands they hold', async () => {
    await client.pipeline().set('a', '1').get('a').incr('n').exec()
    expect(counter.read()).toEqual({ roundTrips: 1, commands: 3, byName: { set: 1, get: 1, incr: 1 } })
    counter.reset()
    await client.multi().set('b', '2').get('b').exec()
    // MULTI, SET, GET, EXEC in one write.
    expect(counter.read()).toEqual({ roundTrips: 1, commands: 4, byName: { multi: 1, set: 1, get: 1, exec: 1 } })
  })

  it('counts commands sent together before any reply as one round trip, and commands awaited in turn as one each', async () => {
    await Promise.all([client.get('a'), client.get('b'), client.incr('n')])
    expect(counter.read()).toMatchObject({ roundTrips: 1, commands: 3 })
    counter.reset()
    await client.get('a')
    await client.get('b')
    await client.incr('n')
    expect(counter.read()).toMatchObject({ roundTrips: 3, commands: 3 })
  })

  it('counts a command that fails as a round trip, and the next one as another', async () => {
    await expect(client.evalsha('0'.repeat(40), 0)).rejects.toThrow(/NOSCRIPT/)
    await client.get('a')
    expect(counter.read()).toEqual({ roundTrips: 2, commands: 2, byName: { evalsha: 1, get: 1 } })
  })

  it('agrees with the scripts the server counted in INFO commandstats', async () => {
    const store = redisStore(client)
    // Cache the three scripts on the server first: a first use is EVALSHA, refused, then EVAL.
    await store.increment('warm', 1)
    await store.reserve('warm-budget', 'w', 0.5, 10, 60_000)
    await store.settle('warm-budget', 'w', 0.5)
    counter.reset()
    const before = await serverStats(admin)
    await store.increment('n', 1)
    await store.reserve('budget', 'a', 0.5, 10, 60_000)
    await store.settle('budget', 'a', 0.25)
    const work = serverWork(before, await serverStats(admin))
    expect(counter.read()).toEqual({ roundTrips: 3, commands: 3, byName: { evalsha: 3 } })
    expect(work.scripts).toBe(3)
    // The commands the scripts ran count on the server too.
    expect(work.commands).toBeGreaterThan(work.scripts)
  })

  it('stops counting once detached, and gives the client its own sendCommand back', async () => {
    const own = Object.getPrototypeOf(client).sendCommand
    counter.detach()
    await client.get('k')
    expect(counter.read().commands).toBe(0)
    expect(client.sendCommand).toBe(own)
  })

  it('makes one round trip before the provider call and one after it, with one policy or three on the store', async () => {
    counter.detach()
    const budget = await roundTripsPerAttempt(client, admin, 3, 'budget')
    // Reserve before the call, settle after it.
    expect(budget).toMatchObject({ attempts: 3, before: 1, after: 1, total: 2, max: 2, serverScripts: 2 })
    // The three policies are asked together and told together: their scripts (rate limit, breaker,
    // reservation; then breaker, charge) share one round trip each way.
    const three = await roundTripsPerAttempt(client, admin, 3, 'three')
    expect(three).toMatchObject({ attempts: 3, before: 1, after: 1, total: 2, max: 2, serverScripts: 5 })
  })
})

describe('reading INFO commandstats and cpu', () => {
  const info = (getCalls: number, evalshaCalls: number, cpu: number): string =>
    [
      '# Commandstats',
      `cmdstat_get:calls=${getCalls},usec=${getCalls * 2},usec_per_call=2.00,rejected_calls=0,failed_calls=0`,
      `cmdstat_evalsha:calls=${evalshaCalls},usec=${evalshaCalls * 10},usec_per_call=10.00,rejected_calls=0,failed_calls=0`,
      'cmdstat_info:calls=7,usec=70,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
      'cmdstat_config|resetstat:calls=1,usec=5,usec_per_call=5.00,rejected_calls=0,failed_calls=0',
      '',
      '# CPU',
      `used_cpu_sys:${cpu / 2}`,
      `used_cpu_user:${cpu / 2}`,
      'used_cpu_sys_children:9.000000',
    ].join('\r\n')

  it('counts the commands run between two readings, scripts apart, without the bench’s own', () => {
    const before = parseServerStats(info(10, 4, 1.5))
    expect(before.calls).toEqual({ get: 10, evalsha: 4, info: 7, 'config|resetstat': 1 })
    expect(before.cpuSeconds).toBeCloseTo(1.5, 12)
    const after = { ...parseServerStats(info(16, 7, 2)), calls: { ...parseServerStats(info(16, 7, 2)).calls, info: 9 } }
    const work = serverWork(before, after)
    expect(work).toMatchObject({ commands: 9, scripts: 3, scriptUsec: 30 })
    expect(work.cpuSeconds).toBeCloseTo(0.5, 12)
  })
})
