import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, strictOutputRules } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { useRedis } from '../redis/support/use-redis.ts'
import { call, invalidEvent, makeTools, turn, validEvent } from '../agent/tool-fixtures.ts'
import { describeWith, postgresServer, redisServer } from '../support/requirements.ts'
import { type PostgresServer, startPostgresServer } from './support/postgres-server.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'
import { freshId, type StoreBackend } from './support/session-store-contract.ts'
import { postgresBackend, redisBackend, sqliteBackend } from './support/store-backends.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-ephemeral-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/**
 * One run with an argument retry and an answer retry on `backend`'s store; returns what the storage
 * holds afterwards, every ephemeral message the model was sent, and the committed exchange.
 */
async function runWithRetries(backend: StoreBackend) {
  const rejectedArgs = { ...invalidEvent, title: 'REJECTED-ARGS-title' }
  const provider = scripted([
    turn(call('create_event', rejectedArgs, 'c1')),
    turn(call('create_event', validEvent, 'c1')),
    'REJECTED-ANSWER: refund it, I think',
    validRefundJson,
  ])
  const agent = Agent.create({ provider, model: 'm', sessions: backend.store })
    .tool(makeTools().eventTool)
    .outputSchema(Refund)
    .reliability({ postDecide: strictOutputRules(3) })
    .build()
  const id = freshId('retries')
  const result = await (await agent.session(id)).runDetailed('book it, then refund order 42')
  const ephemeral = provider.requests.flatMap((r) => r.messages.filter((m) => m.ephemeral === true).map((m) => m.content))
  return { id, result, ephemeral, raw: await (backend.raw as () => Promise<string>)() }
}

/** The storage-level checks, on one backend. */
function neverStoresEphemeral(backend: () => StoreBackend): void {
  it('stores the accepted exchange and none of the feedback, rejected answer or rejected arguments', async () => {
    const { result, ephemeral, raw } = await runWithRetries(backend())
    // The run did retry both: the model was sent feedback for the arguments and for the answer.
    expect(ephemeral.length).toBeGreaterThanOrEqual(2)
    expect(result.functionsCalled.map((f) => f.args)).toEqual([validEvent])
    expect(raw).toContain('book it, then refund order 42')
    expect(raw).toContain('Standup')
    expect(raw).not.toContain('REJECTED-ARGS-title')
    expect(raw).not.toContain('REJECTED-ANSWER')
    expect(raw).not.toContain('tomorrow')
    expect(raw).not.toContain('ephemeral')
    for (const feedback of ephemeral) {
      // Each feedback message, and each of its lines of any length, is absent from the storage.
      for (const line of feedback.split('\n').filter((l) => l.trim().length > 12)) expect(raw).not.toContain(JSON.stringify(line).slice(1, -1))
    }
  })
}

describe('ephemeral feedback at the storage level: SQLite file', () => {
  let backend: StoreBackend | undefined
  beforeAll(() => {
    backend = sqliteBackend(join(dir, 'ephemeral.db'))
  })
  neverStoresEphemeral(() => backend as StoreBackend)
})

describeWith(postgresServer)('ephemeral feedback at the storage level: PostgreSQL rows', () => {
  let server: PostgresServer | undefined
  let pool: pg.Pool | undefined
  let backend: StoreBackend | undefined
  beforeAll(async () => {
    server = await startPostgresServer()
    pool = new pg.Pool({ connectionString: server.url, max: 2 })
    // An idle pooled connection the server closes at shutdown reports it here, not as an uncaught error.
    pool.on('error', () => undefined)
    backend = postgresBackend(pool, 'ephemeral_sessions')
  }, 120_000)
  afterAll(async () => {
    await pool?.end()
    await server?.stop()
  }, 60_000)
  neverStoresEphemeral(() => backend as StoreBackend)
})

const redis = useRedis()
describeWith(redisServer)('ephemeral feedback at the storage level: Redis keys', () => {
  neverStoresEphemeral(() => redisBackend(redis.client, 'retry-session:'))
})
