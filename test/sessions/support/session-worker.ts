// One process of the conversation fleet, run by multi-process.test.ts with
// `node session-worker.ts '<json options>'`. It runs `runs` exchanges on each of `conversations`
// shared conversations (all at once across conversations, one after another within one), through an
// agent whose model answers every first attempt with text the gate rejects, so each run carries
// ephemeral feedback. It prints `ok <tag>` once a run's exchange is committed.
import { Redis } from 'ioredis'
import pg from 'pg'
import { Type } from 'typebox'
import { Agent, strictOutputRules, type Provider, type SessionStore } from '../../../src/index.ts'
import { postgresSessionStore } from '../../../src/postgres.ts'
import { redisSessionStore } from '../../../src/redis.ts'
import { sqliteSessionStore } from '../../../src/sqlite.ts'

export interface WorkerOptions {
  readonly kind: 'sqlite' | 'redis' | 'postgres'
  /** The SQLite path, the Redis port, or the PostgreSQL URL. */
  readonly target: string
  readonly worker: number
  readonly conversations: number
  readonly runs: number
  readonly prefix: string
}

const options = JSON.parse(process.argv[2] as string) as WorkerOptions
let close = async (): Promise<void> => {}
let store: SessionStore
if (options.kind === 'sqlite') {
  const sqlite = sqliteSessionStore({ path: options.target, busyTimeoutMs: 20_000 })
  store = sqlite
  close = async () => sqlite.close()
} else if (options.kind === 'redis') {
  const client = new Redis({ host: '127.0.0.1', port: Number(options.target), maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true })
  await client.connect()
  store = redisSessionStore(client, { keyPrefix: options.prefix })
  close = async () => client.disconnect()
} else {
  const pool = new pg.Pool({ connectionString: options.target, max: 8 })
  // An idle pooled connection the server closes at shutdown reports it here, not as an uncaught error.
  pool.on('error', () => undefined)
  store = postgresSessionStore(pool, { table: 'fleet_sessions' })
  close = () => pool.end()
}

let seed = options.worker + 1
const random = (): number => {
  seed = (seed * 48271) % 2147483647
  return seed / 2147483647
}

// The model: rejected text first (no ephemeral message in the request yet), then the valid answer.
const provider: Provider = {
  name: 'fleet-model',
  complete: (request) =>
    new Promise((resolve) => {
      const question = request.messages.findLast((m) => m.role === 'user' && m.ephemeral !== true)?.content ?? ''
      const tag = question.replace(/^q /, '')
      const retried = request.messages.some((m) => m.ephemeral === true)
      const content = retried ? JSON.stringify({ reply: `a ${tag}` }) : `REJECTED-DRAFT for ${tag}`
      setTimeout(() => resolve({ content, toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, stopReason: 'end' }), 1 + random() * 8)
    }),
}
const agent = Agent.create({ provider, model: 'm', sessions: store })
  .outputSchema(Type.Object({ reply: Type.String() }))
  .reliability({ postDecide: strictOutputRules(3) })
  .build()

async function converse(c: number): Promise<void> {
  const session = await agent.session(`${options.prefix}conv-${c}`)
  for (let n = 0; n < options.runs; n++) {
    const tag = `w${options.worker}-c${c}-n${n}`
    await session.run(`q ${tag}`)
    process.stdout.write(`ok ${tag}\n`)
  }
}

try {
  await Promise.all(Array.from({ length: options.conversations }, (_, c) => converse(c)))
} finally {
  await close()
}
process.stdout.write('done\n')
