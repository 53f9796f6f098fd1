import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { reliabilityProfile } from '../../src/index.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { runWorker } from './support/run-worker.ts'
import { useRedis } from './support/use-redis.ts'

const WORKER = fileURLToPath(new URL('./support/profile-worker.ts', import.meta.url))
const RUNS = 30
const redis = useRedis()

describeWith(redisServer)('a reliability profile shared by a fleet on one Redis', () => {
  it('is one profile for four processes writing at once, read whole by a fifth that starts afterwards', async () => {
    await redis.client.flushdb()
    const workers = await Promise.all(
      [1, 2, 3, 4].map((w) => runWorker<{ worker: number }>(WORKER, [String(redis.server.port), String(w), String(RUNS)], 20_000, `profile worker ${w}`)),
    )
    expect(workers.map((w) => w.worker).sort()).toEqual([1, 2, 3, 4])
    const profile = reliabilityProfile({ store: redisStore(redis.client, { keyPrefix: 'profile-fleet:' }) })
    await profile.refresh()
    expect(profile.recovery({ provider: 'p', model: 'm', errorClass: 'parse', retry: 1 })).toMatchObject({ trials: 4 * RUNS, recovered: 2 * RUNS, rate: 0.5 })
    expect(profile.models()).toMatchObject([{ provider: 'p', model: 'm', runs: 4 * RUNS, succeeded: 2 * RUNS, attempts: 8 * RUNS }])
  })
})
