import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { dbosSuite } from './support/dbos-suite.ts'
import { describeWith, postgresServer } from '../support/requirements.ts'
import { sweepRun, sweepVerdict } from './support/fault-sweep-script.ts'
import { startWorker, type Worker } from './support/worker-process.ts'

// Seeded agent runs on DBOS, each SIGKILLed at one kill point of its run (before, inside or after a
// tool step), then recovered. RG_DURABLE_SWEEP=<runs> sweeps more (the figure is 200 per engine).
const RUNS = Number(process.env['RG_DURABLE_SWEEP'] ?? 6)
const SLOW = 600_000

describeWith(postgresServer)('Agent tool steps on DBOS under SIGKILL', () => {
  const { workers, dir, url: databaseUrl } = dbosSuite('rg-dbos-sweep-', SLOW)

  const finished = async (mode: 'start' | 'resume', runDir: string, seed: number, killAt: number): Promise<Worker> => {
    const worker = startWorker('./dbos-sweep-worker.ts', [runDir, databaseUrl('rg_sweep'), mode, String(seed), String(killAt)])
    workers.push(worker)
    await new Promise<void>((resolve) =>
      worker.child.exitCode !== null || worker.child.signalCode !== null ? resolve() : worker.child.once('exit', () => resolve()),
    )
    return worker
  }
  const resultOf = (worker: Worker): unknown => {
    const line = worker
      .output()
      .split('\n')
      .find((l) => l.startsWith('result '))
    return line === undefined ? undefined : JSON.parse(line.slice('result '.length))
  }

  it(
    `never runs a finished tool step again, and each refund's idempotency key has one effect (${RUNS} seeded runs)`,
    async () => {
      for (let seed = 1; seed <= RUNS; seed++) {
        const run = sweepRun(seed)
        const killAt = (seed * 7) % run.killPoints
        const runDir = join(dir, `seed-${seed}`)
        mkdirSync(runDir)
        const killed = await finished('start', runDir, seed, killAt)
        expect({ seed, killAt, signal: killed.child.signalCode }).toEqual({ seed, killAt, signal: 'SIGKILL' })
        const resumed = await finished('resume', runDir, seed, -1)
        const result = resultOf(resumed) as { text: string; calls: { id: string; status: string }[] } | undefined
        if (result === undefined) throw new Error(`seed ${seed}: no result after the resume: ${resumed.output().slice(-3000)}`)
        const attempts = existsSync(join(runDir, 'payments'))
          ? readFileSync(join(runDir, 'payments'), 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((line) => (JSON.parse(line) as { key: string }).key)
          : []
        // The payments API applies a key once: one effect per refund, whatever the kill; a finished
        // step never runs again, only the step killed inside (its outcome not journaled) ran twice.
        const verdict = sweepVerdict(seed, `sweep-${seed}`, killAt, attempts)
        expect({ seed, text: result.text, calls: result.calls.map((c) => [c.id, c.status]) }).toEqual({ seed, text: 'All done.', calls: verdict.calls })
        expect({ seed, killAt, ...verdict.actual }).toEqual({ seed, killAt, ...verdict.expected })
      }
    },
    SLOW,
  )
})
