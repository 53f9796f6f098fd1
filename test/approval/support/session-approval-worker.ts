// One process of the approval race, run by session-approval-race.test.ts with `node session-approval-worker.ts '<json options>'`:
// `pause` runs the refund and prints `pending <approvalId>`; `race` approves, then resumes (`approve <outcome>`,
// `resume <outcome>`); `finish` resumes until the approval is resumed (`resume ok`). The refund's effects go to `<dir>`.
import { Redis } from 'ioredis'
import { Agent, isApprovalError, isApprovalPendingError, type Provider, type SessionStore, tool, type ToolContext } from '../../../src/index.ts'
import { redisSessionStore } from '../../../src/redis.ts'
import { sqliteSessionStore } from '../../../src/sqlite.ts'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { RefundInput } from './approval-agent.ts'

export interface RaceWorkerOptions {
  readonly kind: 'sqlite' | 'redis'
  /** The SQLite path, or the Redis port. */
  readonly target: string
  readonly prefix: string
  readonly dir: string
  readonly mode: 'pause' | 'race' | 'finish'
  readonly session: string
  readonly approvalId?: string
  readonly reason?: string
  readonly leaseMs: number
}

const options = JSON.parse(process.argv[2] as string) as RaceWorkerOptions
const { dir } = options
let store: SessionStore
let close = async (): Promise<void> => {}
if (options.kind === 'sqlite') {
  const sqlite = sqliteSessionStore({ path: options.target, busyTimeoutMs: 20_000 })
  store = sqlite
  close = async () => sqlite.close()
} else {
  const client = new Redis({ host: '127.0.0.1', port: Number(options.target), maxRetriesPerRequest: 0, lazyConnect: true })
  await client.connect()
  store = redisSessionStore(client, { keyPrefix: options.prefix })
  close = async () => client.disconnect()
}

// The model calls the refund until it reads the tool's result, then answers: the same in every process.
const provider: Provider = {
  name: 'race-model',
  complete: async (request) =>
    request.messages.some((m) => m.role === 'tool')
      ? { content: 'refunded', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
      : {
          content: '',
          toolCalls: [{ id: 'call_refund', name: 'refund', args: { order: 42, amount: 10 } }],
          usage: { inputTokens: 1, outputTokens: 1 },
          stopReason: 'tool_use',
        },
}
const refund = tool({
  name: 'refund',
  description: 'Refund an order',
  input: RefundInput,
  needsApproval: true,
  execute: async (args: { order: number; amount: number }, ctx: ToolContext) => {
    appendFileSync(join(dir, 'attempts'), `${ctx.idempotencyKey}\n`)
    while (existsSync(join(dir, 'hold'))) {
      writeFileSync(join(dir, 'in-tool'), String(process.pid))
      await sleep(20)
    }
    const done = existsSync(join(dir, 'effects')) ? readFileSync(join(dir, 'effects'), 'utf8').split('\n') : []
    if (!done.includes(String(ctx.idempotencyKey))) appendFileSync(join(dir, 'effects'), `${ctx.idempotencyKey}\n`)
    return { refunded: args.amount }
  },
})
const agent = Agent.create({ provider, model: 'm', name: 'refunds', sessions: store }).tool(refund).build()
const session = await agent.session(options.session)
const kind = (error: unknown): string => (isApprovalError(error) ? error.kind : `untyped ${String(error)}`)

if (options.mode === 'pause') {
  const error = await session.run('refund order 42').catch((e: unknown) => e)
  process.stdout.write(isApprovalPendingError(error) ? `pending ${error.approval.approvalId}\n` : `not paused ${String(error)}\n`)
} else if (options.mode === 'race') {
  const id = options.approvalId as string
  const decided = await session.approve(id, { approved: true, reason: options.reason as string }).then(
    (c) => c.outcome,
    (e: unknown) => kind(e),
  )
  process.stdout.write(`approve ${decided}\n`)
  const resumed = await session.resume(id, { leaseMs: options.leaseMs }).then(
    (r) => `ok ${r.text}`,
    (e: unknown) => kind(e),
  )
  process.stdout.write(`resume ${resumed}\n`)
} else {
  const id = options.approvalId as string
  for (;;) {
    const resumed = await session.resume(id, { leaseMs: options.leaseMs }).then(
      (r) => `ok ${r.text}`,
      (e: unknown) => kind(e),
    )
    if (resumed !== 'already-claimed') {
      process.stdout.write(`resume ${resumed}\n`)
      break
    }
    // The dead process's lease has not lapsed yet.
    await sleep(100)
  }
}
await close()
process.exit(0)
