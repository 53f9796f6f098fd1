import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect, it } from 'vitest'
import { dbosPort } from '../../src/dbos.ts'
import { dbosSuite } from './support/dbos-suite.ts'
import { describeWith, postgresServer } from '../support/requirements.ts'
import { startWorker, type Worker } from './support/worker-process.ts'
import type { GateWorkflowResult } from './support/gate-workflow.ts'
import type { TwoStepsResult } from './support/workflow-steps.ts'

// A real PostgreSQL and DBOS processes on a loaded 2-core machine: generous, and nothing timed.
const SLOW = 180_000

describeWith(postgresServer)('dbosPort on DBOS over a real PostgreSQL server', () => {
  const { workers, dir, url: databaseUrl } = dbosSuite('rg-dbos-steps-', SLOW)

  const run = (mode: 'start' | 'resume', workflow: string, id: string): Worker => {
    const worker = startWorker('./dbos-worker.ts', [dir, databaseUrl('rg_dbos'), mode, workflow, id])
    workers.push(worker)
    return worker
  }
  const resultOf = async (worker: Worker): Promise<unknown> => {
    await new Promise<void>((resolve) => (worker.child.exitCode !== null ? resolve() : worker.child.once('exit', () => resolve())))
    const line = worker
      .output()
      .split('\n')
      .find((l) => l.startsWith('result '))
    if (line === undefined) throw new Error(`the workflow gave no result: ${worker.output().slice(-3000)}`)
    return JSON.parse(line.slice('result '.length))
  }
  const until = async (file: string, worker: Worker): Promise<void> => {
    const deadline = Date.now() + SLOW
    while (!existsSync(file)) {
      if (Date.now() > deadline || worker.child.exitCode !== null) throw new Error(`${file} never appeared: ${worker.output().slice(-3000)}`)
      await sleep(50)
    }
  }

  it(
    'resumes a workflow SIGKILLed inside its last step without running the finished steps again, and rebuilds the journaled ProviderError',
    async () => {
      writeFileSync(join(dir, 'hold'), '')
      const first = run('start', 'twoSteps', 'order-42')
      await until(join(dir, 'in-two'), first)
      await first.kill()
      unlinkSync(join(dir, 'hold'))
      const result = (await resultOf(run('resume', 'twoSteps', 'order-42'))) as TwoStepsResult
      expect(result.one).toEqual({ paid: 42, runId: 'order-42' })
      expect(result.two).toBe('done')
      // DBOS hands a thrown error back as a plain Error; the port journals it as data and rebuilds the class.
      expect(result.failure).toEqual({
        branded: true,
        instance: true,
        kind: 'rate-limit',
        status: 429,
        retryAfterMs: 1500,
        provider: 'scripted',
        message: 'slow down',
      })
      expect(readFileSync(join(dir, 'effects'), 'utf8').split('\n').filter(Boolean)).toEqual(['one', 'fail', 'two', 'two'])
    },
    SLOW,
  )

  it(
    'resumes a gate run SIGKILLed between its attempts without calling the provider for the attempts it finished',
    async () => {
      const gateDir = join(dir, 'gate')
      mkdirSync(gateDir)
      writeFileSync(join(gateDir, 'hold'), '')
      const first = run('start', 'gateRun', 'gate-7')
      await until(join(gateDir, 'between'), first)
      await first.kill()
      unlinkSync(join(gateDir, 'hold'))
      const result = (await resultOf(run('resume', 'gateRun', 'gate-7'))) as GateWorkflowResult
      expect(result).toEqual({
        runId: 'gate-7',
        value: { amount: 3 },
        kinds: ['schema-fail', 'http-5xx', 'ok'],
        // The recovered workflow took attempts 1 and 2 from DBOS's step outputs, and reported them as replayed.
        ends: [
          [1, true],
          [2, true],
          [3, false],
        ],
      })
      // One provider call per attempt, across both processes.
      expect(readFileSync(join(gateDir, 'calls'), 'utf8').split('\n').filter(Boolean)).toEqual(['1', '2', '3'])
    },
    SLOW,
  )

  it(
    'refuses a step name reused in one run',
    async () => {
      expect(await resultOf(run('start', 'reuse', 'reused-1'))).toEqual({ refused: true, kind: 'step-reused', ran: 1 })
    },
    SLOW,
  )

  it('refuses to make a port outside a DBOS workflow', () => {
    expect(() => dbosPort()).toThrow(/inside a DBOS workflow/)
  })
})
