import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { restatePort } from '../../src/restate.ts'
import { freePort } from '../redis/support/redis-server.ts'
import { describeWith, restateServer } from '../support/requirements.ts'
import { registerWorker, type RestateServer, startRestateServer } from './support/restate-server.ts'
import { startWorker, type Worker } from './support/worker-process.ts'
import type { GateWorkflowResult } from './support/gate-workflow.ts'
import type { TwoStepsResult } from './support/workflow-steps.ts'

// A real server and worker processes on a loaded 2-core machine: generous, and nothing timed.
const SLOW = 180_000

describeWith(restateServer)('restatePort on a real Restate server', () => {
  let server: RestateServer | undefined
  let worker: Worker | undefined
  let port = 0
  const dir = mkdtempSync(join(tmpdir(), 'rg-restate-steps-'))

  const start = async (): Promise<Worker> => {
    const started = startWorker('./restate-worker.ts', [dir, String(port)])
    await started.said('ready')
    return started
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
    rmSync(dir, { recursive: true, force: true })
  }, SLOW)

  const submit = async (workflow: string, key: string): Promise<void> => {
    const sent = await fetch(`${server?.ingress}/${workflow}/${key}/run/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'null',
    })
    if (!sent.ok) throw new Error(`submitting ${workflow}/${key} failed: ${sent.status} ${await sent.text()}`)
  }
  const output = async (workflow: string, key: string): Promise<unknown> => {
    const answer = await fetch(`${server?.ingress}/restate/workflow/${workflow}/${key}/attach`, { signal: AbortSignal.timeout(SLOW) })
    if (!answer.ok) throw new Error(`${workflow}/${key} failed: ${answer.status} ${await answer.text()}`)
    return answer.json()
  }
  const until = async (file: string): Promise<void> => {
    const deadline = Date.now() + SLOW
    for (;;) {
      try {
        readFileSync(file)
        return
      } catch {
        if (Date.now() > deadline) throw new Error(`${file} never appeared: ${worker?.output().slice(-3000)}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  }

  it(
    "names each invocation of a virtual object by its invocation id, never by the object's key, which every invocation on it shares",
    async () => {
      const call = async (): Promise<{ runId: string; invocation: string; key: string }> => {
        const answer = await fetch(`${server?.ingress}/orders/order-7/runIds`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: 'null',
        })
        if (!answer.ok) throw new Error(`orders/order-7 failed: ${answer.status} ${await answer.text()}`)
        return (await answer.json()) as { runId: string; invocation: string; key: string }
      }
      const first = await call()
      const second = await call()
      expect(first.key).toBe('order-7')
      expect(first.runId).toBe(first.invocation)
      expect(second.runId).toBe(second.invocation)
      // Two runs of one id would give their tools the same idempotency keys.
      expect(second.runId).not.toBe(first.runId)
    },
    SLOW,
  )

  it(
    'resumes a workflow SIGKILLed inside its last step without running the finished steps again, and rebuilds the journaled ProviderError',
    async () => {
      writeFileSync(join(dir, 'hold'), '')
      await submit('twoSteps', 'order-42')
      await until(join(dir, 'in-two'))
      await worker?.kill()
      unlinkSync(join(dir, 'hold'))
      worker = await start()
      const result = (await output('twoSteps', 'order-42')) as TwoStepsResult
      expect(result.one).toEqual({ paid: 42, runId: 'order-42' })
      expect(result.two).toBe('done')
      // The failure came back from the journal after the kill: rebuilt into the library's class.
      expect(result.failure).toEqual({
        branded: true,
        instance: true,
        kind: 'rate-limit',
        status: 429,
        retryAfterMs: 1500,
        provider: 'scripted',
        message: 'slow down',
      })
      // The finished steps ran once; the step in flight at the kill ran again.
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
      await submit('gateRun', 'gate-7')
      await until(join(gateDir, 'between'))
      await worker?.kill()
      unlinkSync(join(gateDir, 'hold'))
      worker = await start()
      const result = (await output('gateRun', 'gate-7')) as GateWorkflowResult
      expect(result).toEqual({
        runId: 'gate-7',
        value: { amount: 3 },
        kinds: ['schema-fail', 'http-5xx', 'ok'],
        // The resumed process took attempts 1 and 2 from the journal, and reported them as replayed.
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
      await submit('reuse', 'reused-1')
      expect(await output('reuse', 'reused-1')).toEqual({ refused: true, kind: 'step-reused', ran: 1 })
    },
    SLOW,
  )

  it('refuses a context that is no Restate context', () => {
    expect(() => restatePort({} as never)).toThrow(TypeError)
  })
})
