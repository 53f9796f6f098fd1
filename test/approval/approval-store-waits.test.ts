import { describe, expect, it } from 'vitest'
import {
  type ApprovalPendingError,
  type ApprovalSlots,
  isApprovalError,
  isApprovalPendingError,
  isReliabilityFailFastError,
  memorySessionStore,
  type SessionStore,
} from '../../src/index.ts'
import { approvalAgent, refundCall } from './support/approval-agent.ts'

type Op = keyof ApprovalSlots
/** What a slot operation does instead of the memory store's: answer (the store's own), hang, throw or reject with a non-Error, or answer `value`. */
type Fault = 'hang' | 'throw' | 'reject' | { readonly value: unknown }

/**
 * A memory session store whose approval slots fail as `faults` say, from the `after`-th call of each
 * operation on (counted from 1): a custom store, or a database that stopped answering.
 */
function faultyStore(
  faults: Partial<Record<Op, Fault>>,
  after: Partial<Record<Op, number>> = {},
  onFault: (op: Op) => void = () => {},
): SessionStore & { heal(): void } {
  const inner = memorySessionStore()
  const slots = inner.approvals as ApprovalSlots
  const calls: Record<Op, number> = { create: 0, read: 0, swap: 0 }
  let healed = false
  const wrap =
    <A extends unknown[], R>(op: Op, real: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      const fault = faults[op]
      if (healed || fault === undefined || ++calls[op] < (after[op] ?? 1)) return real(...args)
      onFault(op)
      if (fault === 'hang') return new Promise<R>(() => {})
      if (fault === 'throw') throw 'the approvals table is locked'
      if (fault === 'reject') return Promise.reject(42)
      return Promise.resolve(fault.value as R)
    }
  return {
    load: inner.load,
    append: inner.append,
    delete: inner.delete,
    approvals: { create: wrap('create', slots.create), read: wrap('read', slots.read), swap: wrap('swap', slots.swap) },
    heal: () => {
      healed = true
    },
  }
}

const settled = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => error,
  )

async function pausedOn(session: { run(input: string): Promise<string> }): Promise<ApprovalPendingError> {
  const error = await settled(session.run('refund order 42'))
  if (!isApprovalPendingError(error)) throw new Error(`the run did not pause: ${String(error)}`)
  return error
}

describe('Session approvals on a store that fails or never answers', () => {
  it('fails a run whose pause the store never records with kind run-timeout at runTimeoutMs, having run and committed nothing', async () => {
    const store = faultyStore({ create: 'hang' })
    const { agent, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: store })
    const session = await agent.session('c-hang')
    const error = await settled(session.run('refund order 42', { runTimeoutMs: 50 }))
    expect(isReliabilityFailFastError(error) && error.kind).toBe('run-timeout')
    expect(effects.runs).toEqual([])
    expect((await store.load('c-hang')).messages).toEqual([])
  })

  it('fails a run whose pause the store never records with kind aborted when its signal aborts', async () => {
    const controller = new AbortController()
    const store = faultyStore({ create: 'hang' }, {}, () => controller.abort(new Error('client went away')))
    const { agent } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: store })
    const session = await agent.session('c-abort')
    const error = await settled(session.run('refund order 42', { signal: controller.signal }))
    expect(isReliabilityFailFastError(error) && error.kind).toBe('aborted')
  })

  it.each(['throw', 'reject'] as const)(
    'fails a run whose store cannot record the pause (it %ss a non-Error) with kind session-store-failed',
    async (fault) => {
      const { agent } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: faultyStore({ create: fault }) })
      const session = await agent.session(`c-${fault}`)
      const error = await settled(session.run('refund order 42'))
      expect(isReliabilityFailFastError(error) && [error.kind, error.reason]).toEqual([
        'session-store-failed',
        `the session store's approvals.create failed: ${fault === 'throw' ? 'the approvals table is locked' : '42'}`,
      ])
    },
  )

  it('reports in agent_run_end and fail_fast what the caller got: approval-pending once the pause is recorded, the store failure when it is not', async () => {
    const endsOf = async (sessions: SessionStore, id: string) => {
      const { agent } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions })
      const seen: string[] = []
      agent.on('agent_run_end', (e) => seen.push(`agent_run_end ${e.outcome} ${e.kind}`))
      agent.on('fail_fast', (e) => seen.push(`fail_fast ${e.kind}`))
      const error = await settled((await agent.session(id)).run('refund order 42'))
      return { error, seen }
    }
    const parked = await endsOf(memorySessionStore(), 'c-ok')
    expect(isApprovalPendingError(parked.error)).toBe(true)
    expect(parked.seen).toEqual(['agent_run_end fail-fast approval-pending'])
    const failed = await endsOf(faultyStore({ create: 'reject' }), 'c-failed')
    expect(isReliabilityFailFastError(failed.error) && failed.error.kind).toBe('session-store-failed')
    expect(failed.seen).toEqual(['fail_fast session-store-failed', 'agent_run_end fail-fast session-store-failed'])
  })

  it('ends a resume whose store never answers the claim at runTimeoutMs (run-timeout) or its signal (aborted), and resumes once the store answers again', async () => {
    const store = faultyStore({ read: 'hang' }, { read: 2 })
    const { agent, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: store })
    const session = await agent.session('c-claim')
    const { approval } = await pausedOn(session)
    await session.approve(approval.approvalId, { approved: true })
    const late = await settled(session.resume(approval.approvalId, { runTimeoutMs: 50 }))
    expect(isReliabilityFailFastError(late) && late.kind).toBe('run-timeout')
    const controller = new AbortController()
    const aborted = settled(session.resume(approval.approvalId, { signal: controller.signal }))
    controller.abort(new Error('client went away'))
    const error = await aborted
    expect(isReliabilityFailFastError(error) && error.kind).toBe('aborted')
    expect(effects.runs).toEqual([])
    store.heal()
    expect((await session.resume(approval.approvalId)).text).toBe('refunded')
    expect(effects.runs).toHaveLength(1)
  })

  it("ends a decision the store never answers at the session's loadTimeoutMs (kind timeout), and records it once the store answers again", async () => {
    const store = faultyStore({ read: 'hang' })
    const { agent, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: store })
    const session = await agent.session('c-decide', { loadTimeoutMs: 50 })
    const { approval } = await pausedOn(session)
    const error = await settled(session.approve(approval.approvalId, { approved: true }))
    expect(isReliabilityFailFastError(error) && [error.kind, error.reason]).toEqual([
      'timeout',
      `session "c-decide": the store's approvals did not answer the decision on ${approval.approvalId} within loadTimeoutMs (50 ms)`,
    ])
    store.heal()
    expect(await session.approve(approval.approvalId, { approved: true })).toEqual({ approvalId: approval.approvalId, outcome: 'approved' })
    expect((await session.resume(approval.approvalId)).text).toBe('refunded')
    expect(effects.runs).toHaveLength(1)
  })

  it('hands out the result of a resumed run whose store never answers the end of its claim, at runTimeoutMs', async () => {
    // The claim is the first swap after the decision; the second marks the approval done and never answers.
    const store = faultyStore({ swap: 'hang' }, { swap: 3 })
    const { agent, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: store })
    const session = await agent.session('c-finish')
    const { approval } = await pausedOn(session)
    await session.approve(approval.approvalId, { approved: true })
    const result = await session.resume(approval.approvalId, { runTimeoutMs: 200 })
    expect(result.text).toBe('refunded')
    expect(effects.runs).toHaveLength(1)
    expect((await store.load('c-finish')).messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it.each([
    ['null', null, 'unknown-approval'],
    ['a number', 42, 'corrupt-record'],
    ['a slot without a revision', { body: '{}' }, 'corrupt-record'],
  ] as const)('refuses, typed, an approval slot the store reads back as %s', async (_what, value, kind) => {
    const store = faultyStore({ read: { value } })
    const { agent } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: store })
    const session = await agent.session('c-read')
    const { approval } = await pausedOn(session)
    for (const call of [session.approve(approval.approvalId, { approved: true }), session.resume(approval.approvalId)]) {
      const error = await settled(call)
      expect(isApprovalError(error) && error.kind).toBe(kind)
    }
  })
})
