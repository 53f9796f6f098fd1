import { describe, expect, it } from 'vitest'
import { durablePort, type DurablePort, memoryDurablePort } from '../../src/durable.ts'
import { isReliabilityFailFastError } from '../../src/index.ts'
import { approvalAgent, refundCall } from '../approval/support/approval-agent.ts'

const settle = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    (v) => ({ resolved: v }),
    (e: unknown) => e,
  )

/** A port of the user's own (no durablePort around it) whose awaitSignal is `signal`. */
function userPort(signal: (name: string, ms: number) => unknown): DurablePort {
  const inner = memoryDurablePort({ runId: 'order-7' })
  return {
    runId: 'order-7',
    step: (n, fn) => inner.step(n, fn),
    sleep: (n, ms) => inner.sleep(n, ms),
    awaitSignal: signal as NonNullable<DurablePort['awaitSignal']>,
  }
}

/** A durablePort over an engine whose signal answers `answer`. */
function enginePort(answer: () => unknown): DurablePort {
  return durablePort({ runId: 'order-7', run: async (_n, action) => action(), sleep: async () => {}, signal: (async () => answer()) as never })
}

/** The run's failure: a fail-fast kind, or what else it was. */
async function failureOf(port: DurablePort, runTimeoutMs?: number) {
  const { agent, effects } = approvalAgent([refundCall({ order: 7, amount: 10 }), 'done'])
  const out = await settle(agent.run('refund order 7', { durable: port, ...(runTimeoutMs === undefined ? {} : { runTimeoutMs }) }))
  return { out, effects }
}

describe('Human approval over a hostile engine signal', () => {
  it('ends a run whose signal never answers at runTimeoutMs, running nothing', async () => {
    const { out, effects } = await failureOf(
      userPort(() => new Promise(() => {})),
      50,
    )
    expect(isReliabilityFailFastError(out) ? out.kind : out).toBe('run-timeout')
    expect(effects.runs).toEqual([])
  }, 3000)

  it('fails typed (durable-journal), running nothing, when a port of yours throws synchronously from awaitSignal', async () => {
    const { out, effects } = await failureOf(
      userPort(() => {
        throw new Error('engine down')
      }),
    )
    expect(isReliabilityFailFastError(out) ? out.kind : out).toBe('durable-journal')
    expect(effects.runs).toEqual([])
  })

  it('fails typed (durable-journal), running nothing, when a port of yours answers a plain value or null from awaitSignal', async () => {
    for (const answer of [{ received: true, value: { approved: true } }, null, 42, { received: 'yes' }]) {
      const { out, effects } = await failureOf(userPort(() => answer))
      if (isReliabilityFailFastError(out)) expect(out.kind, JSON.stringify(answer)).toBe('durable-journal')
      else expect((out as { resolved: unknown }).resolved, JSON.stringify(answer)).toBe('done')
      if (answer === null || answer === 42) expect(effects.runs).toEqual([])
    }
  })

  it('fails typed (engine-failed) when an engine signal answers no outcome (null, a number)', async () => {
    for (const answer of [null, 42, undefined]) {
      const { out, effects } = await failureOf(enginePort(() => answer))
      expect(isReliabilityFailFastError(out) ? out.kind : out, String(answer)).toBe('durable-journal')
      expect(String((out as Error).message), String(answer)).toContain('no { received } outcome')
      expect(effects.runs).toEqual([])
    }
  })
})
