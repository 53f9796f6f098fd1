import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { freePort } from '../redis/support/redis-server.ts'
import { describeWith, restateServer } from '../support/requirements.ts'
import { sweepRun, sweepVerdict } from './support/fault-sweep-script.ts'
import { registerWorker, type RestateServer, startRestateServer } from './support/restate-server.ts'
import { startWorker, type Worker } from './support/worker-process.ts'

// Seeded agent runs as Restate workflows, each SIGKILLed at one kill point of its run (before, inside
// or after a tool step); the endpoint restarts and Restate retries the invocation, replaying the journal.
// RG_DURABLE_SWEEP=<runs> sweeps more (the figure is 200 per engine).
const RUNS = Number(process.env['RG_DURABLE_SWEEP'] ?? 6)
const SLOW = 600_000

describeWith(restateServer)('Agent tool steps on Restate under SIGKILL', () => {
  let server: RestateServer | undefined
  let worker: Worker | undefined
  let port = 0
  const dir = mkdtempSync(join(tmpdir(), 'rg-restate-sweep-'))

  const start = async (mode: 'kill' | 'resume'): Promise<Worker> => {
    await worker?.kill()
    worker = startWorker('./restate-sweep-worker.ts', [String(port), mode])
    await worker.said('ready')
    return worker
  }

  beforeAll(async () => {
    server = await startRestateServer()
    port = await freePort()
    await start('kill')
    await registerWorker(server, port)
  }, SLOW)

  afterAll(async () => {
    await worker?.kill()
    await server?.stop()
    rmSync(dir, { recursive: true, force: true })
  }, SLOW)

  it(
    `never runs a finished tool step again, and each refund's idempotency key has one effect (${RUNS} seeded runs)`,
    async () => {
      for (let seed = 1; seed <= RUNS; seed++) {
        const killAt = (seed * 7) % sweepRun(seed).killPoints
        const runDir = join(dir, `seed-${seed}`)
        mkdirSync(runDir)
        const killing = await start('kill')
        const exited = new Promise<void>((resolve) => killing.child.once('exit', () => resolve()))
        const key = `sweep-${seed}`
        const sent = await fetch(`${server?.ingress}/agentRun/${key}/run/send`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ seed, killAt, dir: runDir }),
        })
        if (!sent.ok) throw new Error(`submitting ${key} failed: ${sent.status} ${await sent.text()}`)
        await exited
        expect({ seed, killAt, signal: killing.child.signalCode }).toEqual({ seed, killAt, signal: 'SIGKILL' })
        await start('resume')
        const answer = await fetch(`${server?.ingress}/restate/workflow/agentRun/${key}/attach`, { signal: AbortSignal.timeout(SLOW) })
        if (!answer.ok) throw new Error(`${key} failed: ${answer.status} ${await answer.text()}`)
        const result = (await answer.json()) as { text: string; calls: { id: string; status: string }[] }
        const attempts = existsSync(join(runDir, 'payments'))
          ? readFileSync(join(runDir, 'payments'), 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((line) => (JSON.parse(line) as { key: string }).key)
          : []
        const verdict = sweepVerdict(seed, key, killAt, attempts)
        expect({ seed, text: result.text, calls: result.calls.map((c) => [c.id, c.status]) }).toEqual({ seed, text: 'All done.', calls: verdict.calls })
        expect({ seed, killAt, ...verdict.actual }).toEqual({ seed, killAt, ...verdict.expected })
      }
    },
    SLOW,
  )
})
