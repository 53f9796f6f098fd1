import { redisStore } from '../../src/store/redis/index.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { stateStoreContract } from '../support/state-store-contract.ts'
import { advanceTtls } from './support/redis-client.ts'
import { useRedis } from './support/use-redis.ts'

const redis = useRedis()
const PREFIX = 'contract:'

describeWith(redisServer)('StateStore contract: redisStore', () => {
  stateStoreContract(async () => {
    await redis.client.flushdb()
    return { store: redisStore(redis.client, { keyPrefix: PREFIX }), advance: (ms) => advanceTtls(redis.client, PREFIX, ms) }
  })
})
