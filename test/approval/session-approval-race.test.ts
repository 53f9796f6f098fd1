import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import type { SessionStore } from '../../src/index.ts'
import { redisSessionStore } from '../../src/redis.ts'
import { sqliteSessionStore } from '../../src/sqlite.ts'
import { useRedis } from '../redis/support/use-redis.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { linesOf } from './support/durable-approval-agent.ts'
import type { RaceWorkerOptions } from './support/session-approval-worker.ts'

const WORKER = join(import.meta.dirname, 'support', 'session-approval-worker.ts')
const RACERS = 4
const ROUNDS = Number(process.env['RG_APPROVAL_ROUNDS'] ?? 3)
// A claim held by a process that died lapses after this: the next resume takes it over.
const LEASE_MS = 1500
const SLOW = 240_000

interface Proc {
  readonly child: ChildProcess
  readonly exited: Promise<void>
  output: string
}

function run(options: RaceWorkerOptions): Proc {
  const child = spawn(process.execPath, ['--no-warnings', WORKER, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] })
  const proc: Proc = { child, output: '', exited: new Promise((resolve) => child.once('close', () => resolve())) }
  child.stdout?.on('data', (d: Buffer) => (proc.output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (proc.output += d.toString()))
  return proc
}

const said = (proc: Proc, prefix: string): string | undefined =>
  proc.output
    .split('\n')
    .find((l) => l.startsWith(prefix))
    ?.slice(prefix.length)

/** A suite: `describe`, or one that needs something from outside the project. */
type Suite = (title: string, body: () => void) => void

const redis = useRedis()
const root = mkdtempSync(join(tmpdir(), 'rg-approval-race-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const KINDS: readonly (readonly ['sqlite' | 'redis', Suite])[] = [
  ['sqlite', describe],
  ['redis', describeWith(redisServer)],
]

for (const [kind, suite] of KINDS) {
  suite(`Session approvals across processes (${kind})`, () => {
    it(
      'decides once and runs the call once when 4 processes approve and resume at once, the claimant SIGKILLed between its claim and the effect',
      async () => {
        const target = kind === 'sqlite' ? join(root, 'sessions.db') : String(redis.server.port)
        const prefix = `rg:race:${Date.now()}:`
        const figures = { decisions: 0, attempts: 0, effects: 0 }
        for (let round = 0; round < ROUNDS; round++) {
          const dir = join(root, `${kind}-${round}`)
          mkdirSync(dir)
          const base = { kind, target, prefix, dir, session: `customer-${round}`, leaseMs: LEASE_MS }
          const pause = run({ ...base, mode: 'pause' })
          await pause.exited
          const approvalId = said(pause, 'pending ') ?? ''
          expect(approvalId, pause.output).toMatch(/^apr_[0-9a-f]{32}$/)
          writeFileSync(join(dir, 'hold'), '')
          const racers = Array.from({ length: RACERS }, (_, i) => run({ ...base, mode: 'race', approvalId, reason: `approver ${i}` }))
          // The claimant holds inside the tool: it is the one process that does not end.
          const deadline = Date.now() + SLOW
          while (!existsSync(join(dir, 'in-tool')) || racers.filter((r) => r.child.exitCode === null).length > 1) {
            if (Date.now() > deadline) throw new Error(racers.map((r) => r.output).join('\n---\n'))
            await sleep(50)
          }
          const claimant = racers.find((r) => r.child.exitCode === null) as Proc
          claimant.child.kill('SIGKILL')
          await Promise.all(racers.map((r) => r.exited))
          const decisions = racers.map((r) => said(r, 'approve '))
          expect(decisions.filter((d) => d === 'approved')).toHaveLength(1)
          for (const d of decisions) if (d !== 'approved' && d !== undefined) expect(d).toBe('already-decided')
          const resumes = racers.filter((r) => r !== claimant).map((r) => said(r, 'resume '))
          for (const r of resumes) expect(r).toMatch(/^(already-claimed|not-decided)$/)
          unlinkSync(join(dir, 'hold'))
          // A process after the lease lapsed takes the dead claimant's resume over and ends the run.
          const finish = run({ ...base, mode: 'finish', approvalId })
          await finish.exited
          expect(said(finish, 'resume '), finish.output).toBe('ok refunded')
          const key = linesOf(dir, 'attempts')[0] as string
          expect(key).toMatch(/:1:call_refund$/)
          expect(linesOf(dir, 'attempts')).toEqual([key, key])
          expect(linesOf(dir, 'effects')).toEqual([key])
          const read: SessionStore = kind === 'sqlite' ? sqliteSessionStore({ path: target }) : redisSessionStore(redis.client, { keyPrefix: prefix })
          const stored = await read.load(base.session)
          expect(stored.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
          figures.decisions += decisions.filter((d) => d === 'approved').length
          figures.attempts += linesOf(dir, 'attempts').length
          figures.effects += linesOf(dir, 'effects').length
        }
        process.stdout.write(
          `${kind} approval race: ${ROUNDS} runs, ${ROUNDS * RACERS} racing processes, ${figures.decisions} decisions recorded, ${figures.attempts} execute attempts (one killed), ${figures.effects} effects\n`,
        )
      },
      SLOW,
    )
  })
}
