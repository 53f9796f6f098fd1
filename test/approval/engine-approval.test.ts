import { describe, expect, it } from 'vitest'
import { type DurableEngine, durablePort, isDurableRunError, type SignalOutcome } from '../../src/durable.ts'
import { argsDigest, isReliabilityFailFastError } from '../../src/index.ts'
import { type ApprovalDecision, resolveApproval } from '../../src/restate.ts'
import { sendApproval } from '../../src/dbos.ts'
import { approvalAgent, refundCall } from './support/approval-agent.ts'

/** An engine whose steps run at once and whose signal answers `answer` (recording what it was asked). */
function engine(answer: (name: string, ms: number) => SignalOutcome | Promise<SignalOutcome>) {
  const asked: { name: string; ms: number }[] = []
  const steps: string[] = []
  const spec: DurableEngine = {
    runId: 'order-42',
    run: async (name, action) => {
      steps.push(name)
      return action()
    },
    sleep: async () => undefined,
    signal: async (name, ms) => {
      asked.push({ name, ms })
      return answer(name, ms)
    },
  }
  return { port: durablePort(spec), asked, steps }
}

const DIGEST = argsDigest('refund', { order: 42, amount: 10 })

describe('Human approval in a durable run', () => {
  it('waits on the port signal named after the approval, then runs the call as its step once approved', async () => {
    const { port, asked, steps } = engine(() => ({ received: true, value: { approved: true, argsDigest: DIGEST } }))
    const { agent, effects, events } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { approvalTimeoutMs: 5000 })
    expect(await agent.run('refund order 42', { durable: port })).toBe('refunded')
    const requested = events.find((e) => e.type === 'approval_requested')?.payload
    expect(requested).toMatchObject({ via: 'engine', argsDigest: DIGEST, timeoutMs: 5000, runId: 'order-42' })
    expect(asked).toEqual([{ name: `approval:${String(requested?.['approvalId'])}`, ms: 5000 }])
    expect(steps).toContain('tool:1:call_refund')
    expect(effects.runs).toEqual([{ args: { order: 42, amount: 10 }, key: 'order-42:1:call_refund' }])
  })

  it('treats a decision it cannot read, or one for other arguments, as a rejection the model is told of', async () => {
    for (const [value, why] of [
      [{ approved: 'yes' }, /could not be read/],
      [{ approved: true, argsDigest: argsDigest('refund', { order: 42, amount: 99 }) }, /other arguments/],
      [{ approved: true, __proto__: { polluted: true }, extra: 1 }, /could not be read/],
    ] as const) {
      const { port } = engine(() => ({ received: true, value }))
      const { agent, provider, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'not refunded'])
      const result = await agent.runDetailed('refund order 42', { durable: port })
      expect(result.functionsCalled[0]?.status).toBe('approval-rejected')
      expect(provider.requests.at(-1)?.messages.at(-1)?.content).toMatch(why)
      expect(effects.runs).toEqual([])
    }
  })

  it('tells the model the approval expired when the signal times out', async () => {
    const { port } = engine(() => ({ received: false }))
    const { agent, effects, events } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'waiting'])
    const result = await agent.runDetailed('refund order 42', { durable: port })
    expect(result.functionsCalled[0]?.status).toBe('approval-expired')
    expect(events.find((e) => e.type === 'approval_decided')?.payload['outcome']).toBe('expired')
    expect(effects.runs).toEqual([])
  })

  it('fails the run, typed, when the engine cannot deliver the signal', async () => {
    const { port } = engine(() => {
      throw new Error('connection reset')
    })
    const { agent, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'x'])
    const error = await agent.run('refund order 42', { durable: port }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as { kind: string }).kind).toBe('durable-journal')
    expect(String((error as Error).message)).toMatch(/did not deliver the signal: connection reset/)
    expect(effects.runs).toEqual([])
  })

  it('refuses a signal name or timeout out of range before the engine is asked, and gives a port no signal when its engine has none', async () => {
    const { port, asked } = engine(() => ({ received: false }))
    const wait = port.awaitSignal as NonNullable<typeof port.awaitSignal>
    await expect(wait('', 10)).rejects.toSatisfy(isDurableRunError)
    await expect(wait('x'.repeat(257), 10)).rejects.toSatisfy(isDurableRunError)
    for (const ms of [0, -1, 1.5, Number.NaN, 2 ** 31]) await expect(wait('a', ms)).rejects.toThrow(RangeError)
    expect(asked).toEqual([])
    expect(durablePort({ runId: 'r', run: async (_n, a) => a(), sleep: async () => undefined }).awaitSignal).toBeUndefined()
  })
})

describe('resolveApproval', () => {
  /** A workflow promise: completed once, like Restate's (a second completion is refused). */
  function workflowPromise() {
    let value: ApprovalDecision | undefined
    return {
      promise: <T>() => ({
        peek: async () => value as T | undefined,
        resolve: async (v?: T) => {
          if (value !== undefined) throw new Error('promise already completed')
          value = v as ApprovalDecision
        },
      }),
    }
  }
  const id = `apr_${'a'.repeat(32)}`

  it('claims the first decision and tells a later one the decision that won', async () => {
    const ctx = workflowPromise()
    expect(await resolveApproval(ctx, id, { approved: true, reason: 'ok' })).toEqual({ claimed: true, decision: { approved: true, reason: 'ok' } })
    expect(await resolveApproval(ctx, id, { approved: false })).toEqual({ claimed: false, decision: { approved: true, reason: 'ok' } })
  })

  it('refuses a hostile approval id or decision before the engine is asked', async () => {
    const ctx = workflowPromise()
    for (const bad of ['', 'apr_x', `${id}/../x`, 42]) await expect(resolveApproval(ctx, bad as string, { approved: true })).rejects.toThrow(TypeError)
    for (const bad of [{ approved: 1 }, { approved: true, run: true }, { approved: true, reason: 'x'.repeat(2001) }, null])
      await expect(resolveApproval(ctx, id, bad as never)).rejects.toThrow(TypeError)
    expect(await ctx.promise().peek()).toBeUndefined()
  })
})

describe('sendApproval', () => {
  it('sends one checked decision on the approval topic, keyed by the approval for DBOS to deduplicate', async () => {
    const sent: unknown[][] = []
    const sender = { send: async (...args: unknown[]) => void sent.push(args) }
    const id = `apr_${'b'.repeat(32)}`
    await sendApproval('refund-1', id, { approved: false, reason: 'no' }, sender)
    expect(sent).toEqual([['refund-1', { approved: false, reason: 'no' }, `approval:${id}`, `refund-1:approval:${id}`]])
    await expect(sendApproval('refund-1', 'apr_', { approved: true }, sender)).rejects.toThrow(TypeError)
    await expect(sendApproval('', id, { approved: true }, sender)).rejects.toThrow(TypeError)
    expect(sent).toHaveLength(1)
  })
})
