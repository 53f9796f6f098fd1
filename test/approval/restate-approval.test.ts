import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { registerWorker, type RestateServer, startRestateServer } from '../durable/support/restate-server.ts'
import { startWorker, type Worker } from '../durable/support/worker-process.ts'
import { freePort } from '../redis/support/redis-server.ts'
import { describeWith, restateServer } from '../support/requirements.ts'
import { linesOf } from './support/durable-approval-agent.ts'

// A real server and worker processes on a loaded 2-core machine: generous, and nothing timed.
const SLOW = 240_000
const APPROVERS = 4
/** Runs of the whole scenario, each on its own workflow. */
const ROUNDS = Number(process.env['RG_APPROVAL_ROUNDS'] ?? 5)

describeWith(restateServer)('Human approval on a real Restate server', () => {
  let server: RestateServer | undefined
  let worker: Worker | undefined
  let port = 0
  const root = mkdtempSync(join(tmpdir(), 'rg-restate-approval-'))

  const start = async (): Promise<Worker> => {
    const started = startWorker('../../approval/support/restate-approval-worker.ts', [String(port)])
    await started.said('ready')
    return started
  }
  const until = async (dir: string, file: string): Promise<string> => {
    const deadline = Date.now() + SLOW
    for (;;) {
      try {
        return readFileSync(join(dir, file), 'utf8')
      } catch {
        if (Date.now() > deadline) throw new Error(`${file} never appeared: ${worker?.output().slice(-3000)}`)
        await sleep(50)
      }
    }
  }

  beforeAll(async () => {
    server = await startRestateServer()
    port = await freePort()
    worker = await start()
    await registerWorker(server, port)
  }, SLOW)

  afterAll(async () => {
    await worker?.kill()
    await server?.stop()
    rmSync(root, { recursive: true, force: true })
  }, SLOW)

  it(
    'pauses on a durable promise, survives a SIGKILL while paused and one between the claim and the effect, and runs the call once when 4 approver processes race',
    async () => {
      let claimed = 0
      let attempts = 0
      let effects = 0
      for (let round = 0; round < ROUNDS; round++) {
        const dir = join(root, String(round))
        mkdirSync(dir)
        const key = `order-${round}`
        const sent = await fetch(`${server?.ingress}/refunds/${key}/run/send`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ dir }),
        })
        expect(sent.ok).toBe(true)
        const requested = JSON.parse(await until(dir, 'requested')) as { approvalId: string; argsDigest: string; via: string }
        expect(requested.via).toBe('engine')
        // Paused in the engine: the worker dies, a new one takes over.
        await worker?.kill()
        worker = await start()
        writeFileSync(join(dir, 'hold'), '')
        // Four approver processes at once, each through the ingress.
        const approvers = Array.from({ length: APPROVERS }, (_, i) =>
          startWorker('../../approval/support/restate-approver.ts', [server?.ingress ?? '', key, requested.approvalId, `approver ${i}`]),
        )
        await Promise.all(approvers.map((a) => new Promise<void>((resolve) => a.child.once('close', () => resolve()))))
        const answers = approvers.map((a) => {
          const line = a
            .output()
            .split('\n')
            .find((l) => l.startsWith('answer 200 '))
          if (line === undefined) throw new Error(`an approver failed: ${a.output()}`)
          return JSON.parse(line.slice('answer 200 '.length)) as { claimed: boolean; decision: { reason: string } }
        })
        expect(answers.filter((a) => a.claimed)).toHaveLength(1)
        // Every approver is told the one decision that won.
        const won = answers.find((a) => a.claimed)?.decision.reason
        for (const a of answers) expect(a.decision.reason).toBe(won)
        // The decision was claimed and the tool started: the worker dies before the effect is recorded.
        await until(dir, 'in-tool')
        await worker?.kill()
        unlinkSync(join(dir, 'hold'))
        worker = await start()
        const answer = await fetch(`${server?.ingress}/restate/workflow/refunds/${key}/attach`, { signal: AbortSignal.timeout(SLOW) })
        expect(await answer.json()).toEqual({ text: 'refunded', statuses: ['ok'] })
        // The step in flight at the kill ran again, with the same idempotency key: one effect.
        expect(linesOf(dir, 'attempts')).toEqual([`${key}:1:call_refund`, `${key}:1:call_refund`])
        expect(linesOf(dir, 'effects')).toEqual([`${key}:1:call_refund`])
        claimed += answers.filter((a) => a.claimed).length
        attempts += linesOf(dir, 'attempts').length
        effects += linesOf(dir, 'effects').length
      }
      process.stdout.write(
        `restate approval: ${ROUNDS} runs, ${ROUNDS * APPROVERS} approver processes, ${claimed} claimed, ${attempts} execute attempts, ${effects} effects\n`,
      )
    },
    SLOW * 2,
  )
})
