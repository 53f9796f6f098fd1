import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe } from 'vitest'
import { describeWith, postgresServer, redisServer } from '../support/requirements.ts'
import { useRedis } from '../redis/support/use-redis.ts'
import { type StoreBackend, sessionStoreContract } from './support/session-store-contract.ts'
import { memoryBackend, pgliteQueryable, postgresBackend, redisBackend, sqliteBackend } from './support/store-backends.ts'
import { type PostgresServer, startPostgresServer } from './support/postgres-server.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-sessions-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Starting PGlite (a WebAssembly build) or initdb on a busy machine takes tens of seconds.
const START_TIMEOUT_MS = 120_000

/** The backend made in `beforeAll`, read by each test. */
function lazy(make: () => Promise<StoreBackend> | StoreBackend): () => StoreBackend {
  let backend: StoreBackend | undefined
  beforeAll(async () => {
    backend = await make()
  }, START_TIMEOUT_MS)
  return () => {
    if (backend === undefined) throw new Error('the store is read before beforeAll ran')
    return backend
  }
}

describe('SessionStore contract: memorySessionStore', () => {
  sessionStoreContract('memory', lazy(memoryBackend))
})

describe('SessionStore contract: sqliteSessionStore', () => {
  sessionStoreContract(
    'sqlite',
    lazy(() => sqliteBackend(join(dir, 'contract.db'))),
  )
})

describe('SessionStore contract: postgresSessionStore on PGlite', () => {
  let db: PGlite | undefined
  afterAll(() => db?.close())
  sessionStoreContract(
    'pglite',
    lazy(async () => {
      db = await PGlite.create()
      return postgresBackend(pgliteQueryable(db), 'contract_sessions')
    }),
  )
})

const redis = useRedis()
describeWith(redisServer)('SessionStore contract: redisSessionStore', () => {
  sessionStoreContract(
    'redis',
    lazy(() => redisBackend(redis.client, 'contract-session:')),
  )
})

describeWith(postgresServer)('SessionStore contract: postgresSessionStore on a real PostgreSQL server', () => {
  let server: PostgresServer | undefined
  let pool: pg.Pool | undefined
  afterAll(async () => {
    await pool?.end()
    await server?.stop()
  }, 60_000)
  sessionStoreContract(
    'postgres',
    lazy(async () => {
      server = await startPostgresServer()
      pool = new pg.Pool({ connectionString: server.url, max: 10 })
      // An idle pooled connection the server closes at shutdown reports it here, not as an uncaught error.
      pool.on('error', () => undefined)
      return postgresBackend(pool, 'contract_sessions')
    }),
  )
})
