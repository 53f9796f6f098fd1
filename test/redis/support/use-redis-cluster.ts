import type { Cluster } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { redisServer } from '../../support/requirements.ts'
import { advanceTtls } from './redis-client.ts'
import { connectCluster, startRedisCluster, type RedisCluster } from './redis-cluster.ts'

// Six servers and a cluster create on a busy machine.
const START_TIMEOUT_MS = 30_000

/** A Redis Cluster for one test file and a connected `Cluster` client; read after `beforeAll`. */
export interface RedisClusterFixture {
  readonly cluster: RedisCluster
  readonly client: Cluster
  /** Empties every master. */
  flush(): Promise<void>
  /** Moves the TTL clock of every key under `prefix` forward by `ms`, on every master. */
  advance(prefix: string, ms: number): Promise<void>
  /** Every key under `prefix`, across the masters, sorted. */
  keys(prefix: string): Promise<string[]>
}

/**
 * Starts a cluster of 3 masters and 3 replicas before the file's tests and stops it (servers killed,
 * temporary folder removed) after them. Without a redis-server it starts nothing: the file's suites
 * are skipped (or failed, under CI) by `describeWith(redisServer)`.
 */
export function useRedisCluster(): RedisClusterFixture {
  let cluster: RedisCluster | undefined
  let client: Cluster | undefined
  beforeAll(async () => {
    if (!redisServer.met) return
    cluster = await startRedisCluster()
    client = await connectCluster(cluster)
  }, START_TIMEOUT_MS)
  afterAll(async () => {
    client?.disconnect()
    await cluster?.stop()
  })
  const ready = (): Cluster => {
    if (client === undefined) throw new Error('useRedisCluster: the cluster is read before beforeAll ran')
    return client
  }
  const masters = () => ready().nodes('master')
  return {
    get cluster() {
      if (cluster === undefined) throw new Error('useRedisCluster: the cluster is read before beforeAll ran')
      return cluster
    },
    get client() {
      return ready()
    },
    async flush() {
      await Promise.all(masters().map((node) => node.flushall()))
    },
    async advance(prefix, ms) {
      await Promise.all(masters().map((node) => advanceTtls(node, prefix, ms)))
    },
    async keys(prefix) {
      const found = await Promise.all(masters().map((node) => node.keys(`${prefix}*`)))
      return found.flat().sort()
    },
  }
}
