import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { type PostgresServer, startPostgresServer } from '../../sessions/support/postgres-server.ts'
import type { Worker } from './worker-process.ts'

/** What a DBOS suite shares: its worker processes (killed after it), a scratch folder, the URL of a database on its server. */
export interface DbosSuite {
  readonly workers: Worker[]
  readonly dir: string
  /** The URL of `database` on the suite's PostgreSQL server (DBOS creates it). */
  url(database: string): string
}

/**
 * A DBOS suite's setup, in the `describe` that calls it: a real PostgreSQL server started before its
 * tests, and after them its workers killed, the server stopped and the scratch folder (`prefix`) removed.
 */
export function dbosSuite(prefix: string, timeoutMs: number): DbosSuite {
  let server: PostgresServer | undefined
  const workers: Worker[] = []
  const dir = mkdtempSync(join(tmpdir(), prefix))
  beforeAll(async () => {
    server = await startPostgresServer()
  }, timeoutMs)
  afterAll(async () => {
    for (const worker of workers) await worker.kill()
    await server?.stop()
    rmSync(dir, { recursive: true, force: true })
  }, timeoutMs)
  return { workers, dir, url: (database) => `${server?.url.replace(/\/postgres$/, '')}/${database}` }
}
