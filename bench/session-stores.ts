/**
 * `npm run bench:sessions`: commit latency (p50/p99) of each session store on this machine's
 * loopback, and the cost of loading a 10,000-message conversation. Starts its own redis-server and
 * PostgreSQL server (skipping a store whose server is not installed); PGlite runs in process.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Redis } from 'ioredis'
import pg from 'pg'
import { memorySessionStore, type Message, type SessionStore } from '../src/index.ts'
import { postgresSessionStore, type PgQueryable } from '../src/postgres.ts'
import { redisSessionStore } from '../src/redis.ts'
import { sqliteSessionStore } from '../src/sqlite.ts'
import { startRedisServer } from '../test/redis/support/redis-server.ts'
import { postgresBin, startPostgresServer } from '../test/sessions/support/postgres-server.ts'

const COMMITS = 400
const LONG = 10_000

const exchange = (i: number): Message[] => [
  { role: 'user', content: `question ${i}: where is my order #${i}? ${'context '.repeat(20)}` },
  { role: 'assistant', content: JSON.stringify({ orderId: String(i), status: 'shipped', eta: '2026-12-01' }) },
]

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number

async function measure(name: string, store: SessionStore): Promise<string> {
  const times: number[] = []
  for (let i = 0; i < COMMITS; i++) {
    const id = `bench-${i % 20}`
    const started = performance.now()
    await store.append(id, { exchange: exchange(i), expectedVersion: Math.floor(i / 20) })
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  // A 10,000-message conversation: 5,000 exchanges of 2 messages.
  for (let i = 0; i < LONG / 2; i += 100) {
    await Promise.all(Array.from({ length: 100 }, (_, j) => store.append('bench-long', { exchange: exchange(i + j), expectedVersion: 0 })))
  }
  const loadStart = performance.now()
  const loaded = await store.load('bench-long')
  const loadMs = performance.now() - loadStart
  if (loaded.messages.length !== LONG) throw new Error(`${name}: loaded ${loaded.messages.length} messages`)
  for (let i = 0; i < 20; i++) await store.delete(`bench-${i}`)
  await store.delete('bench-long')
  console.error(`${name}: done`)
  return `| ${name} | ${percentile(times, 50).toFixed(2)} | ${percentile(times, 99).toFixed(2)} | ${loadMs.toFixed(0)} |`
}

const rows: string[] = []
const dir = mkdtempSync(join(tmpdir(), 'rg-bench-sessions-'))
try {
  rows.push(await measure('memory', memorySessionStore()))
  const sqlite = sqliteSessionStore({ path: join(dir, 'bench.db') })
  rows.push(await measure('SQLite (file, WAL, synchronous=FULL)', sqlite))
  sqlite.close()
  try {
    const server = await startRedisServer()
    const client = new Redis({ host: server.host, port: server.port, lazyConnect: true })
    await client.connect()
    rows.push(await measure('Redis (loopback)', redisSessionStore(client)))
    client.disconnect()
    await server.stop()
  } catch (error) {
    rows.push(`| Redis | skipped: ${(error as Error).message} | | |`)
  }
  if (postgresBin() !== undefined) {
    const server = await startPostgresServer()
    const pool = new pg.Pool({ connectionString: server.url, max: 4 })
    pool.on('error', (error) => console.error(`pool: ${error.message}`))
    rows.push(await measure('PostgreSQL (loopback, fsync off)', postgresSessionStore(pool)))
    await pool.end()
    await server.stop()
  } else rows.push('| PostgreSQL | skipped: no server installed | | |')
  const lite = new PGlite()
  rows.push(await measure('PGlite (in process)', postgresSessionStore(lite as unknown as PgQueryable)))
  await lite.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
console.log(`session stores, ${COMMITS} sequential commits over 20 conversations; load of a ${LONG.toLocaleString('en')}-message conversation\n`)
console.log('| store | commit p50 (ms) | commit p99 (ms) | load 10,000 messages (ms) |\n|---|---|---|---|')
console.log(rows.join('\n'))
