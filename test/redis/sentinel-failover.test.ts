import { expect, it } from 'vitest'
import { describeWith, redisServer } from '../support/requirements.ts'
import { BUDGET_USD, budgetRaceThroughFailover, commitRaceThroughFailover } from './support/failover-races.ts'
import { useRedisSentinel } from './support/use-redis-sentinel.ts'

const USD_EPSILON = 1e-9
const redis = useRedisSentinel()

describeWith(redisServer)('Redis Sentinel: the master SIGKILLed, its replica promoted (asynchronous replication)', () => {
  it('lets a 4-process budget race go on, losing at most the writes acknowledged in the last moments before the kill', { timeout: 60_000 }, async () => {
    const race = await budgetRaceThroughFailover(redis, false)
    expect(race.afterPromotion).toBeGreaterThan(0)
    // Runs that failed while the master was gone failed as a budget does: closed, on its store.
    expect(Object.keys(race.failures).filter((code) => code !== 'budget-store-failed')).toEqual([])
    // The new master lacks at most the charges acknowledged just before the kill...
    expect(race.lostUsd).toBeLessThanOrEqual(race.lastMomentUsd.settle + USD_EPSILON)
    // ...so the budget is overspent by at most those, the reservations of that moment, and the charges
    // of the attempts in flight whose settle failed (each of those runs failed with budget-store-failed).
    const bound = race.lastMomentUsd.settle + race.lastMomentUsd.reserve + race.unsettledUsd
    expect(race.billedUsd - BUDGET_USD).toBeLessThanOrEqual(bound + USD_EPSILON)
  })

  it('lets concurrent conversation commits go on, losing at most those acknowledged in the last moments before the kill', { timeout: 60_000 }, async () => {
    const race = await commitRaceThroughFailover(redis, false)
    expect(race.afterPromotion).toBeGreaterThan(0)
    expect(race.lost).toBe(race.lostInLastMoment)
  })
})
