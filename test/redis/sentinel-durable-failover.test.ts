import { expect, it } from 'vitest'
import { describeWith, redisServer } from '../support/requirements.ts'
import { BUDGET_USD, budgetRaceThroughFailover, commitRaceThroughFailover } from './support/failover-races.ts'
import { useRedisSentinel } from './support/use-redis-sentinel.ts'

const USD_EPSILON = 1e-9
const redis = useRedisSentinel()

describeWith(redisServer)('Redis Sentinel with durable: { replicas: 1 }: the master SIGKILLed, its replica promoted', () => {
  it('loses no acknowledged charge of a 4-process budget race: overspent only by the charges that failed', { timeout: 60_000 }, async () => {
    const race = await budgetRaceThroughFailover(redis, true)
    expect(race.afterPromotion).toBeGreaterThan(0)
    expect(Object.keys(race.failures).filter((code) => code !== 'budget-store-failed')).toEqual([])
    expect(race.lostUsd).toBeLessThanOrEqual(USD_EPSILON)
    expect(race.billedUsd - BUDGET_USD).toBeLessThanOrEqual(race.unsettledUsd + USD_EPSILON)
  })

  it('loses no acknowledged conversation commit', { timeout: 60_000 }, async () => {
    const race = await commitRaceThroughFailover(redis, true)
    expect(race.afterPromotion).toBeGreaterThan(0)
    expect(race.acknowledged).toBeGreaterThan(0)
    expect(race.lost).toBe(0)
  })
})
