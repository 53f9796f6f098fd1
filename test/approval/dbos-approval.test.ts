import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect, it } from 'vitest'
import { startWorker, type Worker } from '../durable/support/worker-process.ts'
import { dbosSuite } from '../durable/support/dbos-suite.ts'
import { describeWith, postgresServer } from '../support/requirements.ts'
import { linesOf } from './support/durable-approval-agent.ts'

// A real PostgreSQL and DBOS processes on a loaded 2-core machine: generous, and nothing timed.
const SLOW = 240_000
const APPROVERS = 4
/** Runs of the whole scenario, each its own workflow. */
const ROUNDS = Number(process.env['RG_APPROVAL_ROUNDS'] ?? 3)

describeWith(postgresServer)('Human approval on DBOS over a real PostgreSQL server', () => {
  const { workers, dir: root, url: databaseUrl } = dbosSuite('rg-dbos-approval-', SLOW)

  const url = (): string => databaseUrl('rg_dbos_approval')
  const spawn = (args: readonly string[]): Worker => {
    const worker = startWorker('../../approval/support/dbos-approval-worker.ts', args)
    workers.push(worker)
    return worker
  }
  /** Resolves once the worker exited and its output was read to the end (called right after it starts). */
  const exited = (worker: Worker): Promise<void> => new Promise<void>((resolve) => worker.child.once('close', () => resolve()))
  const until = async (dir: string, file: string, worker: Worker): Promise<string> => {
    const deadline = Date.now() + SLOW
    while (!existsSync(join(dir, file))) {
      if (Date.now() > deadline || worker.child.exitCode !== null) throw new Error(`${file} never appeared: ${worker.output().slice(-3000)}`)
      await sleep(50)
    }
    return readFileSync(join(dir, file), 'utf8')
  }

  it(
    'waits in DBOS.recv, survives a SIGKILL while paused and one between the claim and the effect, and runs the call once when 4 approver processes race',
    async () => {
      let attempts = 0
      let effects = 0
      for (let round = 0; round < ROUNDS; round++) {
        const dir = join(root, String(round))
        mkdirSync(dir)
        const id = `refund-${round}`
        const first = spawn([dir, url(), 'start', id])
        const requested = JSON.parse(await until(dir, 'requested', first)) as { approvalId: string; via: string }
        expect(requested.via).toBe('engine')
        await first.kill()
        // Four processes send a decision at once: DBOS records the first (the approval id is the idempotency key).
        const approvers = Array.from({ length: APPROVERS }, (_, i) => spawn([dir, url(), 'approve', id, requested.approvalId, `approver ${i}`]))
        await Promise.all(approvers.map(exited))
        for (const a of approvers) expect(a.output()).toContain('sent')
        writeFileSync(join(dir, 'hold'), '')
        const second = spawn([dir, url(), 'resume', id])
        // Recovered, it received the decision and started the tool: it dies before the effect is recorded.
        await until(dir, 'in-tool', second)
        await second.kill()
        unlinkSync(join(dir, 'hold'))
        const third = spawn([dir, url(), 'resume', id])
        await exited(third)
        const line = third
          .output()
          .split('\n')
          .find((l) => l.startsWith('result '))
        expect(line, third.output().slice(-3000)).toBeDefined()
        expect(JSON.parse((line as string).slice('result '.length))).toEqual({ text: 'refunded', statuses: ['ok'] })
        expect(linesOf(dir, 'attempts')).toEqual([`${id}:1:call_refund`, `${id}:1:call_refund`])
        expect(linesOf(dir, 'effects')).toEqual([`${id}:1:call_refund`])
        attempts += linesOf(dir, 'attempts').length
        effects += linesOf(dir, 'effects').length
      }
      process.stdout.write(`dbos approval: ${ROUNDS} runs, ${ROUNDS * APPROVERS} approver processes, ${attempts} execute attempts, ${effects} effects\n`)
    },
    SLOW * 2,
  )
})
