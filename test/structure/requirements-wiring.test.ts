import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const TEST = resolve(import.meta.dirname, '..')

// A suite that starts a redis-server or a postgres server, or reads the shared corpora must say so through `describeWith`,
// so that a machine without them prints why it skipped, and CI fails instead of skipping quietly.
const NEEDS_REDIS = /\b(useRedis|useRedisCluster|useRedisSentinel|startRedisServer|startRedisCluster|startRedisSentinel)\(/
const NEEDS_POSTGRES = /\bstartPostgresServer\(/
const NEEDS_RESTATE = /\bstartRestateServer\(/
const NEEDS_CORPORA = /\b(corpusPath|measureBfclCorrectness|readBfcl|CORPORA)\b/

describe('suites that need something from outside the project', () => {
  const suites = readdirSync(TEST, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => ({ file: f, text: readFileSync(join(TEST, f), 'utf8') }))

  it('declare it with describeWith(redisServer), describeWith(postgresServer), describeWith(restateServer) or describeWith(corpora)', () => {
    const bypassing = suites
      .filter(
        ({ text }) =>
          (NEEDS_REDIS.test(text) && !text.includes('describeWith(redisServer)')) ||
          (NEEDS_POSTGRES.test(text) && !text.includes('describeWith(postgresServer)')) ||
          (NEEDS_RESTATE.test(text) && !text.includes('describeWith(restateServer)')) ||
          (NEEDS_CORPORA.test(text) && !text.includes('describeWith(corpora)')),
      )
      .map(({ file }) => file)
    expect(bypassing).toEqual([])
  })

  it('recognise every helper of test/redis/support that starts Redis servers as needing redis-server', () => {
    const support = join(TEST, 'redis', 'support')
    const helpers = readdirSync(support)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(join(support, f), 'utf8').matchAll(/export (?:async )?function ((?:use|start)Redis\w*)\(/g)].map((m) => m[1] as string))
    expect(helpers).toEqual(
      expect.arrayContaining(['useRedis', 'useRedisCluster', 'useRedisSentinel', 'startRedisServer', 'startRedisCluster', 'startRedisSentinel']),
    )
    expect(helpers.filter((name) => !NEEDS_REDIS.test(`const fixture = ${name}()`))).toEqual([])
  })
})
